import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Router } from '@koa/router';
import { pino } from 'pino';
import { createGatewayApp, type GatewayDependencies } from '../../gateway/app.js';
import { apiKeyFromHeaders, authenticateRequest } from '../../gateway/auth.js';
import { ApiError } from '../../gateway/error-response.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { TroupeMetrics } from '../../gateway/metrics.js';
import { RequestState } from '../../gateway/request-logging.js';
import type { GatewayState } from '../../gateway/state.js';

const logger = pino({ level: 'silent' });
const alice = { id: 'user-alice', name: 'alice' };
const fakeUsers = {
  authenticate: async (key: string) => (key === 'good-key' ? alice : undefined),
  exchangeLoginToken: async () => undefined,
};

/** Echoes the parsed body and the caller; throws what `?fail=` names. */
function echoRouter(): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.post('/echo', (ctx) => {
    ctx.body = { body: ctx.request.body, user: ctx.state.user };
  });
  router.get('/whoami', (ctx) => {
    if (ctx.query.fail === 'conflict') throw new ApiError(409, 'conflict', 'busy');
    ctx.body = { user: ctx.state.user, requestId: ctx.state.requestId };
  });
  return router;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly these bytes and headers (fetch would fix some of them up). */
function rawRequest(url: string, { method = 'POST', path, headers = {}, body }: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('gateway middleware', () => {
  let server: RunningHttpServer | undefined;

  async function serve(overrides: Partial<GatewayDependencies> = {}): Promise<string> {
    const app = createGatewayApp({ logger, readinessChecks: {}, users: fakeUsers, routers: [echoRouter()], ...overrides });
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    return server.url;
  }

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe('API-key authentication', () => {
    it('accepts Authorization: Bearer and X-API-Key, setting ctx.state.user', async () => {
      const url = await serve();
      const variants: Array<Record<string, string>> = [{ authorization: 'Bearer good-key' }, { authorization: 'bearer   good-key ' }, { 'x-api-key': 'good-key' }];
      for (const headers of variants) {
        const response = await fetch(`${url}/whoami`, { headers });
        expect(response.status, JSON.stringify(headers)).to.equal(200);
        expect(((await response.json()) as { user: unknown }).user).to.deep.equal(alice);
      }
    });

    it('answers 401 with WWW-Authenticate and an error body without a key', async () => {
      const url = await serve();
      const response = await fetch(`${url}/whoami`);
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal('Bearer realm="troupe"');
      const body = (await response.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error.code).to.equal('unauthorized');
      expect(body.error.message).to.include('Authorization: Bearer');
      expect(body.error.details).to.deep.equal({});
    });

    it('answers 401 invalid_token for a wrong key or a non-Bearer scheme without X-API-Key', async () => {
      const url = await serve();
      const wrong = await fetch(`${url}/whoami`, { headers: { authorization: 'Bearer bad-key' } });
      expect(wrong.status).to.equal(401);
      expect(wrong.headers.get('www-authenticate')).to.equal('Bearer realm="troupe", error="invalid_token"');
      expect(((await wrong.json()) as { error: { code: string } }).error.code).to.equal('unauthorized');
      const basic = await fetch(`${url}/whoami`, { headers: { authorization: 'Basic Z29vZC1rZXk6' } });
      expect(basic.status).to.equal(401);
    });

    it('keeps unknown paths a 404 without asking for a key, and public routes open', async () => {
      const url = await serve();
      expect((await fetch(`${url}/no/such/route`)).status).to.equal(404);
      expect((await fetch(`${url}/healthz`)).status).to.equal(200);
      expect((await fetch(`${url}/metrics`)).status).to.equal(200);
    });

    it('refuses to mount routers without a user directory', () => {
      expect(() => createGatewayApp({ logger, readinessChecks: {}, routers: [echoRouter()] })).to.throw(/need `users`/);
    });

    it('apiKeyFromHeaders / authenticateRequest read raw Node headers (for the MCP transports)', async () => {
      expect(apiKeyFromHeaders({ authorization: 'Bearer abc' })).to.equal('abc');
      expect(apiKeyFromHeaders({ 'x-api-key': ' abc ' })).to.equal('abc');
      expect(apiKeyFromHeaders({ authorization: 'Basic abc', 'x-api-key': 'def' })).to.equal('def');
      expect(apiKeyFromHeaders({ 'x-api-key': ['first', 'second'] })).to.equal('first');
      expect(apiKeyFromHeaders({ authorization: 'Bearer' })).to.equal(undefined);
      expect(apiKeyFromHeaders({})).to.equal(undefined);
      expect(await authenticateRequest(fakeUsers, { authorization: 'Bearer good-key' })).to.deep.equal(alice);
      expect(await authenticateRequest(fakeUsers, { 'x-api-key': 'nope' })).to.equal(undefined);
      expect(await authenticateRequest(fakeUsers, {})).to.equal(undefined);
    });
  });

  describe('JSON bodies', () => {
    const auth = { authorization: 'Bearer good-key' };

    it('parses a JSON body (and +json types, and gzip)', async () => {
      const url = await serve();
      const plain = await fetch(`${url}/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
      expect(await plain.json()).to.deep.equal({ body: { a: [1, 2] }, user: alice });
      const vendor = await fetch(`${url}/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'application/vnd.troupe+json; charset=utf-8' }, body: '[1]' });
      expect(((await vendor.json()) as { body: unknown }).body).to.deep.equal([1]);
      const gzipped = await rawRequest(url, {
        path: '/echo',
        headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync('{"z":true}'),
      });
      expect(JSON.parse(gzipped.body).body).to.deep.equal({ z: true });
    });

    it('passes a POST without a body as {}', async () => {
      const url = await serve();
      const response = await fetch(`${url}/echo`, { method: 'POST', headers: auth });
      expect(response.status).to.equal(200);
      expect(((await response.json()) as { body: unknown }).body).to.deep.equal({});
    });

    it('answers 413 beyond the limit, also for a chunked body without Content-Length', async () => {
      const url = await serve({ bodyLimitBytes: 1024 });
      const big = JSON.stringify({ text: 'x'.repeat(2000) });
      const response = await fetch(`${url}/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: big });
      expect(response.status).to.equal(413);
      expect(await response.json()).to.deep.equal({
        error: { code: 'payload_too_large', message: 'the request body is larger than the limit of 1024 bytes', details: { limitBytes: 1024 } },
      });
      const chunked = await rawRequest(url, { path: '/echo', headers: { ...auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: big });
      expect(chunked.status).to.equal(413);
      expect(JSON.parse(chunked.body).error.code).to.equal('payload_too_large');
      const bomb = await rawRequest(url, {
        path: '/echo',
        headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(big),
      });
      expect(bomb.status).to.equal(413);
    });

    it('answers 400 for malformed JSON and for JSON that is not an object or array', async () => {
      const url = await serve();
      for (const body of ['{"a":', 'not json', '"a string"', '42', '{"__proto__":{"x":1}}']) {
        const response = await fetch(`${url}/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
        expect(response.status, body).to.equal(400);
        const error = ((await response.json()) as { error: { code: string; message: string; details: { reason: string } } }).error;
        expect(error.code).to.equal('bad_request');
        expect(error.details.reason).to.be.a('string');
      }
    });

    it('answers 415 for a body that is not JSON, and for an unknown Content-Encoding', async () => {
      const url = await serve();
      const text = await fetch(`${url}/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'hello' });
      expect(text.status).to.equal(415);
      expect(await text.json()).to.deep.equal({
        error: {
          code: 'unsupported_media_type',
          message: 'request bodies must be JSON (Content-Type: application/json)',
          details: { contentType: 'text/plain' },
        },
      });
      const untyped = await rawRequest(url, { path: '/echo', headers: auth, body: '{"a":1}' });
      expect(untyped.status).to.equal(415);
      const encoded = await rawRequest(url, { path: '/echo', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'br-nope' }, body: '{}' });
      expect(encoded.status).to.equal(415);
    });

    it('leaves raw-body paths to their routes', async () => {
      const upload = new Router<GatewayState>();
      upload.post('/uploads/doc', async (ctx) => {
        const chunks: Buffer[] = [];
        for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
        ctx.body = { bytes: Buffer.concat(chunks).length, parsed: ctx.request.body ?? null };
      });
      const url = await serve({ routers: [upload], rawBodyPaths: ['/uploads'] });
      const response = await fetch(`${url}/uploads/doc`, { method: 'POST', headers: { ...auth, 'content-type': 'text/markdown' }, body: '# title' });
      expect(await response.json()).to.deep.equal({ bytes: 7, parsed: null });
    });
  });

  describe('CORS', () => {
    it('sends no CORS headers by default', async () => {
      const url = await serve();
      const response = await fetch(`${url}/healthz`, { headers: { origin: 'https://evil.example' } });
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it('allows listed origins only, on answers and errors, and answers preflights', async () => {
      const url = await serve({ corsOrigins: ['https://app.example.com'] });
      const allowed = await fetch(`${url}/whoami`, { headers: { origin: 'https://app.example.com' } });
      expect(allowed.status).to.equal(401);
      expect(allowed.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(allowed.headers.get('access-control-expose-headers')).to.include('Retry-After');
      expect(allowed.headers.get('vary')).to.include('Origin');
      expect(allowed.headers.get('access-control-allow-credentials')).to.equal(null);

      const other = await fetch(`${url}/healthz`, { headers: { origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);

      const preflight = await fetch(`${url}/echo`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-headers')).to.include('Authorization');
      expect(preflight.headers.get('access-control-allow-headers')).to.include('X-API-Key');
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    });

    it('allows any origin with "*"', async () => {
      const url = await serve({ corsOrigins: '*' });
      const response = await fetch(`${url}/healthz`, { headers: { origin: 'https://anywhere.example' } });
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    });
  });

  describe('GET /metrics', () => {
    it('serves HTTP counts by route pattern, rejections by reason and limit, turn, reply and commit latency, and the queues', async () => {
      const oldestWaitingAt = Date.now() - 90_000;
      const metrics = new TroupeMetrics({
        queues: async () => ({ counter: { jobs: { waiting: 4, active: 1 }, oldestWaitingAt }, echo: { jobs: { waiting: 0 }, oldestWaitingAt: null } }),
      });
      const url = await serve({ metrics });
      await fetch(`${url}/whoami`, { headers: { authorization: 'Bearer good-key' } });
      await fetch(`${url}/whoami?fail=conflict`, { headers: { authorization: 'Bearer good-key' } });
      await fetch(`${url}/whoami`);
      await fetch(`${url}/no/such/route/123`);
      await fetch(`${url}/echo`, { method: 'POST', headers: { authorization: 'Bearer good-key', 'content-type': 'application/json' }, body: '{' });
      metrics.turnFinished('counter', 'reply', 0.003);
      metrics.turnFinished('counter', 'turn_failed', 0.2);
      metrics.observeReply('counter', 0.3, 'reply');
      metrics.commitFinished('counter', 'applied', 0.002);
      metrics.recordRejection('rate_limited');
      metrics.recordLimitRejection('counter', 'concurrency');

      const response = await fetch(`${url}/metrics`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      expect(text).to.include('troupe_http_requests_total{method="GET",route="/whoami",status="200"} 1');
      expect(text).to.include('troupe_http_requests_total{method="GET",route="/whoami",status="409"} 1');
      expect(text).to.include('troupe_http_requests_total{method="GET",route="/whoami",status="401"} 1');
      expect(text).to.include('troupe_http_requests_total{method="GET",route="unmatched",status="404"} 1');
      expect(text).to.match(/troupe_http_request_duration_seconds_count\{method="GET",route="\/whoami",status="200"\} 1/);
      for (const reason of ['conflict', 'unauthorized', 'not_found', 'bad_request', 'rate_limited']) {
        expect(text).to.include(`troupe_rejections_total{reason="${reason}"} 1`);
      }
      expect(text).to.include('troupe_turn_duration_seconds_count{kind="counter",outcome="reply"} 1');
      expect(text).to.include('troupe_turn_duration_seconds_count{kind="counter",outcome="turn_failed"} 1');
      expect(text).to.include('troupe_turn_duration_seconds_bucket{le="0.005",kind="counter",outcome="reply"} 1');
      expect(text).to.include('troupe_message_reply_duration_seconds_count{kind="counter",outcome="reply"} 1');
      expect(text).to.include('troupe_mongo_commit_duration_seconds_count{kind="counter",result="applied"} 1');
      expect(text).to.include('troupe_limit_rejections_total{kind="counter",limit="concurrency"} 1');
      expect(text).to.include('troupe_queue_jobs{kind="counter",state="waiting"} 4');
      expect(text).to.include('troupe_queue_jobs{kind="counter",state="active"} 1');
      const oldest = Number(/troupe_queue_oldest_waiting_seconds\{kind="counter"\} (\S+)/.exec(text)?.[1]);
      expect(oldest).to.be.at.least(90);
      expect(text).to.include('troupe_queue_oldest_waiting_seconds{kind="echo"} 0');
      expect(text).to.include('troupe_process_cpu_seconds_total');
    });

    it('still answers when the queues cannot be read, counting the failure', async () => {
      const metrics = new TroupeMetrics({ queues: async () => Promise.reject(new Error('redis down')), processMetrics: false });
      const url = await serve({ metrics });
      const response = await fetch(`${url}/metrics`);
      expect(response.status).to.equal(200);
      expect(await response.text()).to.include('troupe_queue_depth_errors_total 1');
    });

    it('keeps a registry per app, so two apps count separately', async () => {
      const first = new TroupeMetrics({ processMetrics: false });
      const second = new TroupeMetrics({ processMetrics: false });
      const url = await serve({ metrics: first });
      await fetch(`${url}/healthz`);
      const other = createGatewayApp({ logger, readinessChecks: {}, metrics: second });
      const otherServer = await startHttpServer(other, { host: '127.0.0.1', port: 0 });
      try {
        await fetch(`${otherServer.url}/healthz`);
        await fetch(`${otherServer.url}/healthz`);
      } finally {
        await otherServer.close();
      }
      expect((await first.render()).body).to.include('troupe_http_requests_total{method="GET",route="/healthz",status="200"} 1');
      expect((await second.render()).body).to.include('troupe_http_requests_total{method="GET",route="/healthz",status="200"} 2');
    });

    it('wants the METRICS_TOKEN as a Bearer token when one is set', async () => {
      const url = await serve({ metricsToken: 'metrics-token-0123456789' });
      const anonymous = await fetch(`${url}/metrics`);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('www-authenticate')).to.include('Bearer');
      expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).to.equal(401);
      expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer good-key' } })).status).to.equal(401);
      const scraper = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(scraper.status).to.equal(200);
    });
  });

  it('echoes a sane X-Request-Id and hands it to handlers behind auth', async () => {
    const url = await serve();
    const response = await fetch(`${url}/whoami`, { headers: { authorization: 'Bearer good-key', 'x-request-id': 'req-42' } });
    expect(response.headers.get('x-request-id')).to.equal('req-42');
    expect(((await response.json()) as { requestId: string }).requestId).to.equal('req-42');
  });
});

describe('RequestState (ctx.state)', () => {
  function capturing() {
    const lines: Array<Record<string, unknown>> = [];
    const base = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    return { base, lines };
  }

  it('logs with the request id, and the user id once the request is authenticated', () => {
    const { base, lines } = capturing();
    const state = new RequestState(base, 'req-7');
    state.logger.info('before auth');
    state.user = alice;
    state.logger.info('after auth');
    expect(lines.map((l) => [l.msg, l.requestId, l.userId])).to.deep.equal([
      ['before auth', 'req-7', undefined],
      ['after auth', 'req-7', 'user-alice'],
    ]);
  });

  it('makes the child logger once per user, and keeps the getter on the class (no accessor of its own per request)', () => {
    const { base } = capturing();
    const state = new RequestState(base, 'req-8');
    expect(state.logger).to.equal(state.logger);
    expect(Object.getOwnPropertyDescriptor(state, 'logger')).to.equal(undefined);
    expect(Object.getOwnPropertyNames(new RequestState(base, 'req-9'))).to.deep.equal(Object.getOwnPropertyNames(new RequestState(base, 'req-10')));
  });
});
