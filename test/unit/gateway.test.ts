import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { createGatewayApp } from '../../gateway/app.js';
import { ApiError, errorResponse, toErrorResponse } from '../../gateway/error-response.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import type { ReadinessChecks } from '../../gateway/readiness.js';
import { requestLogging } from '../../gateway/request-logging.js';
import type { GatewayState } from '../../gateway/state.js';

const logger = pino({ level: 'silent' });

describe('gateway app (health routes, error shape)', () => {
  let server: RunningHttpServer | undefined;

  async function serve(readinessChecks: ReadinessChecks, readinessTimeoutMs?: number): Promise<string> {
    server = await startHttpServer(createGatewayApp({ logger, readinessChecks, readinessTimeoutMs }), { host: '127.0.0.1', port: 0 });
    return server.url;
  }

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const ok = async () => undefined;

  it('GET /healthz answers 200 {status:"ok"} even when a dependency is down', async () => {
    const url = await serve({ redis: async () => Promise.reject(new Error('down')) });
    const response = await fetch(`${url}/healthz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ok' });
  });

  it('GET /readyz answers 200 when every check passes', async () => {
    const url = await serve({ redis: ok, mongo: ok });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ready', checks: { redis: 'ok', mongo: 'ok' } });
  });

  it('GET /readyz answers 503 naming the failed check and why', async () => {
    const url = await serve({ redis: ok, mongo: async () => Promise.reject(new Error('connection refused')) });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).to.equal(503);
    expect(await response.json()).to.deep.equal({
      status: 'not_ready',
      checks: { redis: 'ok', mongo: 'failed' },
      errors: { mongo: 'connection refused' },
    });
  });

  it('GET /readyz counts a check that never answers as failed', async () => {
    const url = await serve({ redis: () => new Promise<void>(() => undefined), mongo: ok }, 50);
    const response = await fetch(`${url}/readyz`);
    expect(response.status).to.equal(503);
    const body = (await response.json()) as { checks: Record<string, string>; errors: Record<string, string> };
    expect(body.checks).to.deep.equal({ redis: 'failed', mongo: 'ok' });
    expect(body.errors.redis).to.equal('no answer within 50 ms');
  });

  it('GET /readyz counts a check that throws synchronously as failed', async () => {
    const url = await serve({
      redis: () => {
        throw new Error('sync failure');
      },
    });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).to.equal(503);
    expect(((await response.json()) as { errors: Record<string, string> }).errors).to.deep.equal({ redis: 'sync failure' });
  });

  it('answers an unknown route with a 404 error body', async () => {
    const url = await serve({});
    const response = await fetch(`${url}/no/such/thing?x=1`);
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(await response.json()).to.deep.equal({
      error: { code: 'not_found', message: 'no route for GET /no/such/thing', details: { method: 'GET', path: '/no/such/thing' } },
    });
  });

  it('answers a wrong method on a known route with a 405 error body and Allow', async () => {
    const url = await serve({});
    const response = await fetch(`${url}/healthz`, { method: 'POST' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.include('GET');
    const body = (await response.json()) as unknown;
    expect(body).to.deep.equal({
      error: { code: 'method_not_allowed', message: 'Method Not Allowed', details: { method: 'POST', path: '/healthz' } },
    });
  });

  it('tags each response with a request id, keeping a sane incoming one', async () => {
    const url = await serve({});
    const kept = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).to.equal('abc-123');
    const replaced = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});

describe('errorResponse middleware', () => {
  let server: RunningHttpServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serveThrowing(thrown: () => never): Promise<Response> {
    const app = new Koa<GatewayState>();
    app.use(requestLogging(logger));
    app.use(errorResponse());
    app.use(() => thrown());
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    return fetch(`${server.url}/anything`);
  }

  it('renders an ApiError as it is', async () => {
    const response = await serveThrowing(() => {
      throw new ApiError(422, 'invalid_move', 'that card is not in your hand', { card: 'Village' });
    });
    expect(response.status).to.equal(422);
    expect(await response.json()).to.deep.equal({
      error: { code: 'invalid_move', message: 'that card is not in your hand', details: { card: 'Village' } },
    });
  });

  it('hides the message of an unexpected error behind a 500 error body', async () => {
    const response = await serveThrowing(() => {
      throw new Error('secret internal detail');
    });
    expect(response.status).to.equal(500);
    expect(await response.json()).to.deep.equal({
      error: { code: 'internal_server_error', message: 'Internal Server Error', details: {} },
    });
  });
});

describe('toErrorResponse', () => {
  it('keeps the message of an exposed client error (ctx.throw style)', () => {
    const thrown = Object.assign(new Error('missing field "name"'), { status: 400, expose: true });
    expect(toErrorResponse(thrown).body).to.deep.equal({ error: { code: 'bad_request', message: 'missing field "name"', details: {} } });
  });

  it('maps a non-error value to 500', () => {
    expect(toErrorResponse('a string').status).to.equal(500);
  });
});
