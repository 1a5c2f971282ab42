/**
 * Property-based fuzzing of the gateway's own routes (POST /auth/login, the API-key check, the JSON
 * body parser, /metrics): whatever the method, path, headers and body, the answer is never a 5xx, every
 * error is an ErrorBody, and the process keeps serving.
 */
import { request } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { Router } from '@koa/router';
import mongoose, { type Connection } from 'mongoose';
import { pino } from 'pino';
import { createGatewayApp } from '../../gateway/app.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import type { GatewayState } from '../../gateway/state.js';
import { UserDirectory } from '../../gateway/users.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';

interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

function send(url: string, { method, path, headers, body }: Exchange): Promise<Answer> {
  // Node's client frames no body of an OPTIONS/DELETE on its own; unframed bytes would be a protocol error, not a gateway test.
  const framed = body === undefined ? headers : { ...headers, 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers: framed }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 120 });

describe('gateway fuzzing (fast-check)', function () {
  this.timeout(120_000);
  let target: MongoTarget;
  let connection: Connection;
  let http: RunningHttpServer;
  let validKey: string;
  let liveToken: () => Promise<string>;

  before(async () => {
    target = await mongoTarget();
    connection = await mongoose.createConnection(target.uri, { dbName: uniqueDbName('fuzz') }).asPromise();
    const users = await UserDirectory.open(connection);
    const created = await users.createUser('fuzzer');
    validKey = created.key;
    liveToken = async () => (await users.createLoginToken(created.user.id)).token;
    const router = new Router<GatewayState>();
    router.post('/echo', (ctx) => {
      ctx.body = { body: ctx.request.body ?? null };
    });
    router.get('/whoami', (ctx) => {
      ctx.body = { user: ctx.state.user };
    });
    const app = createGatewayApp({
      logger: pino({ level: 'silent' }),
      readinessChecks: {},
      users,
      routers: [router],
      bodyLimitBytes: 4096,
      corsOrigins: ['https://app.example.com'],
    });
    http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await http?.close();
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close();
    await target?.stop();
  });

  function expectWellFormed(exchange: Exchange, answer: Answer): void {
    const what = `${exchange.method} ${exchange.path} ${JSON.stringify(exchange.headers)} -> ${answer.status} ${answer.body.slice(0, 200)}`;
    expect(answer.status, what).to.be.below(500);
    if (answer.status >= 400 && exchange.method !== 'HEAD') {
      expect(answer.contentType, what).to.match(/^application\/json/);
      const parsed = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
      expect(parsed.error?.code, what).to.be.a('string');
      expect(parsed.error?.message, what).to.be.a('string');
      expect(parsed.error?.details, what).to.be.an('object');
    }
  }

  const bodies = fc.oneof(
    fc.constant(undefined),
    fc.json().map((text) => Buffer.from(text)),
    fc.jsonValue().map((value) => Buffer.from(JSON.stringify({ token: value }))),
    printable.map((token) => Buffer.from(JSON.stringify({ token }))),
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text)),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.integer({ min: 4000, max: 9000 }).map((size) => Buffer.from(JSON.stringify({ token: 'x'.repeat(size) }))),
  );

  const contentTypes = fc.oneof(
    fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''),
    printable,
  );

  const authHeaders = fc.oneof(
    fc.constant({}),
    printable.map((value) => ({ authorization: value })),
    printable.map((value) => ({ authorization: `Bearer ${value}` })),
    printable.map((value) => ({ 'x-api-key': value })),
    fc.constant({ authorization: 'VALID' }),
    fc.constant({ 'x-api-key': 'VALID' }),
  );

  const paths = fc.oneof(
    fc.constantFrom('/auth/login', '/whoami', '/echo', '/metrics', '/healthz', '/readyz', '/', '/auth/login/', '/AUTH/LOGIN', '/auth//login'),
    fc.stringMatching(/^\/[A-Za-z0-9._~%!$&'()*+,;=:@/-]{0,40}$/),
    fc.constantFrom('/%', '/%E0%A4%A', '/echo?x=%ZZ', '/whoami?fail=%'),
  );

  it('never answers the login route and authenticated routes with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        paths,
        authHeaders,
        contentTypes,
        bodies,
        fc.boolean(),
        fc.option(printable, { nil: undefined }),
        async (method, path, auth, contentType, body, withOrigin, requestId) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(auth)) headers[name] = value === 'VALID' ? (name === 'authorization' ? `Bearer ${validKey}` : validKey) : value;
          if (contentType !== '') headers['content-type'] = contentType;
          if (withOrigin) headers.origin = 'https://app.example.com';
          if (requestId !== undefined) headers['x-request-id'] = requestId;
          const exchange: Exchange = { method, path, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body };
          expectWellFormed(exchange, await send(http.url, exchange));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('handles random login bodies, including live and spent tokens, without a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constant('LIVE'),
          printable,
          fc.jsonValue(),
          fc.dictionary(printable, fc.jsonValue(), { maxKeys: 4 }),
        ),
        async (token) => {
          const value = token === 'LIVE' ? await liveToken() : token;
          const exchange: Exchange = {
            method: 'POST',
            path: '/auth/login',
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ token: value })),
          };
          const answer = await send(http.url, exchange);
          expectWellFormed(exchange, answer);
          if (token === 'LIVE') {
            expect(answer.status).to.equal(200);
            const spent = await send(http.url, exchange);
            expect(spent.status).to.equal(401);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('is still up and answering after the fuzzing', async () => {
    const health = await fetch(`${http.url}/healthz`);
    expect(health.status).to.equal(200);
    const whoami = await fetch(`${http.url}/whoami`, { headers: { authorization: `Bearer ${validKey}` } });
    expect(((await whoami.json()) as { user: { name: string } }).user.name).to.equal('fuzzer');
  });
});
