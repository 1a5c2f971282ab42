/**
 * GET /openapi.json and GET /docs on the real gateway: scripts/serve-gateway.ts with every actor kind,
 * in-process workers, real Redis, the embedded MongoDB with the MTG dataset. Checks that the document
 * lists exactly the routes the gateway's Koa routers register, that real answers match the documented
 * schemas (compiled with zod's z.fromJSONSchema), and that Swagger UI renders it in chromium from
 * local files only.
 */
import { METHODS } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Router } from '@koa/router';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import Koa from 'koa';
import mongoose, { type Connection } from 'mongoose';
import { chromium } from 'playwright-core';
import { pino } from 'pino';
import { z } from 'zod';
import { kinds } from '../../actors/index.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { CONTRACT_ANSWERS } from '../../gateway/openapi/contract-answers.js';
import type { OpenApiDocument } from '../../gateway/openapi/document.js';
import { openApiPath } from '../../gateway/openapi/operation-parts.js';
import { RedisNames } from '../../queues/keys.js';
import { loadConfig } from '../../scripts/config.js';
import { serveGateway, type ServedGateway } from '../../scripts/serve-gateway.js';
import { pollUntil } from '../support/async.js';
import { seededMongo, type SeededMongo } from '../support/seeded-dbpath.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(process.cwd(), 'test-results', 'api-docs.png');
const logger = pino({ level: 'silent' });

type Json = Record<string, unknown>;

/** Failures answered with another body than the common error: the readiness report, MCP's JSON-RPC error. */
const NOT_ERROR_BODIES = new Set(['get /readyz 503', 'get /mcp 405', 'delete /mcp 405']);
type Layer = { path: string | RegExp; methods: string[] };

/** A layer registered with router.all (every method Node knows). */
const isAnyMethod = (layer: Layer) => METHODS.every((method) => layer.methods.includes(method));

/** Every route layer of the app's routers (router.use middleware has no methods and is no route). */
function registeredLayers(app: Koa): Layer[] {
  return app.middleware
    .flatMap((middleware) => (middleware as { router?: Router }).router?.stack ?? [])
    .filter((layer) => layer.methods.length > 0)
    .map((layer) => ({ path: layer.path, methods: layer.methods }));
}

/** `METHOD /path` of each documented operation, path parameters as in the document (`{id}`). */
function documentedOperations(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
}

/** A concrete path under a documented template, to test it against a RegExp route. */
const sampleOf = (template: string) => template.replace(/\{[^}]+\}/g, 'x');

/** The documented response (components.responses references resolved) for a status. */
function documentedResponse(doc: OpenApiDocument, method: string, path: string, status: number): Json {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is documented`).to.not.equal(undefined);
  let response = operation!.responses[String(status)] as Json | undefined;
  expect(response, `${method} ${path} documents status ${status} (has ${Object.keys(operation!.responses).join(', ')})`).to.not.equal(undefined);
  const ref = response!.$ref as string | undefined;
  if (ref) response = (doc.components.responses as Record<string, Json>)[ref.replace('#/components/responses/', '')];
  return response!;
}

/** A documented JSON Schema as a zod validator: the document's components become `$defs`. */
function compiled(doc: OpenApiDocument, schema: unknown): z.ZodType {
  const rewritten = JSON.parse(JSON.stringify({ ...(schema as Json), $defs: doc.components.schemas }).replaceAll('#/components/schemas/', '#/$defs/'));
  return z.fromJSONSchema(rewritten);
}

function expectMatches(doc: OpenApiDocument, method: string, path: string, status: number, body: unknown): void {
  const schema = (documentedResponse(doc, method, path, status).content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
  expect(schema, `${method} ${path} ${status} has a JSON schema`).to.not.equal(undefined);
  const result = compiled(doc, schema).safeParse(body);
  expect(result.success, `${method} ${path} ${status}: ${JSON.stringify(result.error?.issues.slice(0, 5))}\n${JSON.stringify(body).slice(0, 600)}`).to.equal(true);
}

describe('OpenAPI document and API reference on the real gateway', function () {
  this.timeout(180_000);
  const prefix = `test-openapi-${process.pid}-${Date.now().toString(36)}`;
  let target: SeededMongo;
  let connection: Connection;
  let redis: Redis;
  let workers: RunningWorkers;
  let gateway: ServedGateway;
  let webDir: string;
  let app: Koa;
  let doc: OpenApiDocument;
  let key: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };

  before(async () => {
    target = await seededMongo();
    connection = await mongoose.createConnection(target.uri, { dbName: target.dbName }).asPromise();
    redis = new Redis(REDIS_URL);
    const names = new RedisNames(prefix);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: connection, kinds, logger, names });
    webDir = await mkdtemp(join(tmpdir(), 'troupe-openapi-web-'));
    await mkdir(join(webDir, 'assets'));
    await writeFile(join(webDir, 'index.html'), '<!doctype html><title>web client</title>');
    const config = loadConfig({ REDIS_URL, REDIS_PREFIX: prefix, MONGODB_URI: target.uri, MONGODB_DB: target.dbName, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' });
    // serveGateway keeps its Koa app to itself: catch it as it is served, so the routes compared are
    // the real wiring's (including routers added there later), not a copy of it.
    const served: Koa[] = [];
    const serve = Koa.prototype.callback;
    Koa.prototype.callback = function (this: Koa) {
      served.push(this);
      return serve.call(this);
    };
    try {
      gateway = await serveGateway({ config, logger, redis, redisUrl: REDIS_URL, mongo: connection, kinds, names, webClientDir: webDir });
    } finally {
      Koa.prototype.callback = serve;
    }
    expect(served).to.have.length(1);
    app = served[0]!;
    key = (await gateway.users.createUser('openapi')).key;
    doc = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as OpenApiDocument;
  });

  after(async () => {
    await gateway?.close();
    await workers?.close();
    redis?.disconnect();
    await deleteRedisPrefix(prefix);
    await connection?.close();
    await target?.stop();
    if (webDir) await rm(webDir, { recursive: true, force: true });
  });

  it('documents every route the gateway registers, and no route it does not', () => {
    const layers = registeredLayers(app);
    expect(layers.length).to.be.greaterThan(50);
    const documented = documentedOperations(doc);
    const documentedPaths = Object.keys(doc.paths);

    const undocumented: string[] = [];
    for (const layer of layers) {
      if (layer.path instanceof RegExp) {
        const regex = layer.path;
        if (!documentedPaths.some((path) => regex.test(sampleOf(path)))) undocumented.push(`ALL ${regex}`);
      } else if (isAnyMethod(layer)) {
        if (!documentedPaths.includes(openApiPath(layer.path))) undocumented.push(`ALL ${layer.path}`);
      } else {
        // @koa/router adds HEAD to every GET route by itself.
        for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
          if (!documented.includes(`${method} ${openApiPath(layer.path)}`)) undocumented.push(`${method} ${layer.path}`);
        }
      }
    }
    expect(undocumented, 'registered but missing from /openapi.json').to.deep.equal([]);

    const served = (operation: string) => {
      const [method, path] = operation.split(' ') as [string, string];
      return layers.some((layer) =>
        layer.path instanceof RegExp ? layer.path.test(sampleOf(path)) : openApiPath(layer.path) === path && (isAnyMethod(layer) || layer.methods.includes(method)),
      );
    };
    expect(documented.filter((operation) => !served(operation)), 'documented but not registered').to.deep.equal([]);
  });

  it('is OpenAPI 3.1 with schemas zod compiles, an error schema on every error, and answers for the routes it names', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.components.securitySchemes).to.have.keys('bearerApiKey', 'headerApiKey', 'metricsToken', 'adminSession');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of Object.keys(operation.responses)) {
          const resolved = documentedResponse(doc, method, path, Number(status));
          for (const [type, media] of Object.entries((resolved.content ?? {}) as Record<string, { schema: unknown }>)) {
            expect(() => compiled(doc, media.schema), `${method} ${path} ${status} ${type}`).to.not.throw();
          }
          if (Number(status) >= 400 && !NOT_ERROR_BODIES.has(`${method} ${path} ${status}`)) expect(JSON.stringify(resolved), `${method} ${path} ${status}`).to.include('#/components/schemas/Error');
        }
      }
    }
    for (const route of Object.keys(CONTRACT_ANSWERS)) {
      const [method, path] = route.split(' ') as [string, string];
      expect(doc.paths[openApiPath(path)]?.[method.toLowerCase()], `${route} (contract-answers.ts) is a declared route`).to.not.equal(undefined);
    }
    const move = doc.paths['/games/{id}/moves']!.post!;
    expect(move.parameters!.find((p) => p.name === 'id')!.schema).to.include({ pattern: '^g-[a-f0-9]{12}$' });
    expect(JSON.stringify(move.requestBody)).to.include('"required":["move"]');
    expect(doc.paths['/games/{id}/events']!.get!.responses['200']).to.have.nested.property('x-sse-events.snapshot');
  });

  it('answers as documented: account, games, meta, generic actor and batch routes, and their errors', async () => {
    const healthz = await fetch(`${gateway.url}/healthz`);
    expectMatches(doc, 'GET', '/healthz', 200, await healthz.json());
    const me = await call('GET', '/me');
    expectMatches(doc, 'GET', '/me', me.status, me.body);

    const created = await call('POST', '/games', { seats: ['me', 'bot:bmu'], seed: 7 });
    expectMatches(doc, 'POST', '/games', created.status, created.body);
    const gameId = created.body.gameId as string;
    const games = await call('GET', '/games');
    expectMatches(doc, 'GET', '/games', games.status, games.body);
    expect((games.body.games as Json[]).map((g) => g.gameId)).to.include(gameId);
    const view = await call('GET', `/games/${gameId}?detail=full`);
    expectMatches(doc, 'GET', '/games/{id}', view.status, view.body);
    const badMove = await call('POST', `/games/${gameId}/moves`, { move: 'buy Nothing At All' });
    expect(badMove.status).to.equal(400);
    expectMatches(doc, 'POST', '/games/{id}/moves', badMove.status, badMove.body);

    const formats = await call('GET', '/formats');
    expect(formats.body.formats).to.include('Modern');
    expectMatches(doc, 'GET', '/formats', formats.status, formats.body);
    const archetypes = await call('GET', '/archetypes?format=Modern&days=30');
    expectMatches(doc, 'GET', '/archetypes', archetypes.status, archetypes.body);
    const noFormat = await call('GET', '/archetypes');
    expectMatches(doc, 'GET', '/archetypes', noFormat.status, noFormat.body);

    const sent = await call('POST', '/actors/echo/openapi/messages', { type: 'say', payload: { text: 'hello' } });
    expectMatches(doc, 'POST', '/actors/{kind}/{id}/messages', sent.status, sent.body);
    const state = await call('GET', '/actors/echo/openapi');
    expectMatches(doc, 'GET', '/actors/{kind}/{id}', state.status, state.body);
    const unknownKind = await call('POST', '/actors/nope/x/messages', { type: 'say', payload: {} });
    expectMatches(doc, 'POST', '/actors/{kind}/{id}/messages', unknownKind.status, unknownKind.body);

    const batch = await call('POST', '/batches', { kind: 'echo', messages: [{ id: 'openapi-batch', type: 'say', payload: { text: 'one' } }] });
    expectMatches(doc, 'POST', '/batches', batch.status, batch.body);
    const batchId = batch.body.batchId as string;
    const progress = await pollUntil(async () => {
      const answer = await call('GET', `/batches/${batchId}`);
      return answer.body.finished === true && answer;
    }, { timeoutMs: 30_000, what: 'the batch to finish' });
    expectMatches(doc, 'GET', '/batches/{id}', progress.status, progress.body);
    const results = await call('GET', `/batches/${batchId}/results?limit=10`);
    expectMatches(doc, 'GET', '/batches/{id}/results', results.status, results.body);

    const login = await fetch(`${gateway.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'not-a-token' }) });
    expectMatches(doc, 'POST', '/auth/login', login.status, await login.json());
  });

  it('answers every GET route that needs no parameter with a documented status, content type and schema', async () => {
    const routes = Object.entries(doc.paths)
      .filter(([, item]) => item.get && !(item.get.parameters ?? []).some((p) => p.required))
      .map(([path]) => path);
    expect(routes).to.include.members(['/me/keys', '/me/usage', '/conversations', '/documents', '/inboxes', '/scouting/runs', '/players', '/sse']);
    for (const path of routes) {
      const abort = new AbortController();
      const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
      const documented = documentedResponse(doc, 'GET', path, response.status);
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
      const types = Object.keys((documented.content ?? {}) as Json);
      expect(types.includes(type) || types.includes('*/*'), `GET ${path} ${response.status} answered ${type}, documented ${types.join(', ')}`).to.equal(true);
      if (type === 'application/json') expectMatches(doc, 'GET', path, response.status, await response.json());
      else abort.abort();
    }
  });

  it('renders the reference with Swagger UI from local files only, under its CSP', async () => {
    const page = await fetch(`${gateway.url}/docs`);
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'");
    expect(await page.text()).to.not.match(/<script>(?!<\/)/);
    expect((await fetch(`${gateway.url}/docs/index.html`)).status).to.equal(404);

    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
    try {
      const tab = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
      const requested: string[] = [];
      const problems: string[] = [];
      tab.on('request', (request) => requested.push(request.url()));
      tab.on('console', (message) => {
        if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      // Injected over the DevTools protocol, so the page's CSP stays as served.
      await tab.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)));
      await tab.goto(`${gateway.url}/docs`);
      const operations = documentedOperations(doc).length;
      await tab.waitForFunction((count) => document.querySelectorAll('.opblock').length === count, operations, { timeout: 60_000 });
      expect(await tab.locator('.info .title').innerText()).to.include('troupe');
      const moves = tab.locator('#operations-game-post_games_id_moves');
      expect(await moves.locator('.opblock-summary-path').innerText()).to.include('/games/{id}/moves');
      await moves.locator('.opblock-summary-control').click();
      await moves.locator('.opblock-body').waitFor();
      await moves.locator('.tablinks', { hasText: 'Schema' }).first().click();
      await moves.locator('.model-box').first().waitFor();

      // Try it out, signed in through the Authorize dialog: a real call to this origin.
      await tab.locator('.auth-wrapper button.authorize').click();
      await tab.locator('.modal-ux input').first().fill(key);
      await tab.locator('.modal-ux .auth-btn-wrapper button.authorize').first().click();
      await tab.locator('.modal-ux button.close-modal').click();
      const formats = tab.locator('#operations-meta-get_formats');
      await formats.locator('.opblock-summary-control').click();
      await formats.locator('button.try-out__btn').click();
      await formats.locator('button.execute').click();
      expect(await formats.locator('.live-responses-table tbody .response-col_status').innerText()).to.include('200');
      expect(await formats.locator('.live-responses-table tbody .response-col_description').innerText()).to.include('Modern');
      await tab.evaluate(() => window.scrollTo(0, 0));
      await mkdir(join(process.cwd(), 'test-results'), { recursive: true });
      await tab.screenshot({ path: SCREENSHOT });
      expect(requested.filter((url) => !url.startsWith(gateway.url))).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});
