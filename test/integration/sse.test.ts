import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { pino } from 'pino';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { createGatewayApp } from '../../gateway/app.js';
import { ApiError } from '../../gateway/error-response.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { lastEventIdOf, SSE_RETRY_MS, streamEvents, streamReplies, type StreamEnd } from '../../gateway/sse.js';
import type { GatewayState } from '../../gateway/state.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { deferred, withDeadline } from '../support/async.js';
import { openSse, readEvents, type SseItem } from '../support/sse-client.js';
import { testKinds } from '../support/test-kinds.js';
import { testNames } from '../support/test-names.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = pino({ level: 'silent' });

interface Observed {
  finished: Promise<StreamEnd>;
  readerStopped: Promise<void>;
}

/** Passes events through and reports when the reader behind them has been finalized. */
async function* tracked(events: AsyncIterable<ReplyEvent>, onStop: () => void): AsyncGenerator<ReplyEvent> {
  try {
    yield* events;
  } finally {
    onStop();
  }
}

describe('SSE writer (gateway/sse.ts) end to end: real Redis, workers, Koa, eventsource-parser', function () {
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  let server: RunningHttpServer;
  const observed = new Map<string, Observed>();
  const stoppers = new Map<string, AbortController>();
  const run = `sse${Date.now()}`;
  // Its own key and queue names: another file's workers (on another MongoDB) never drain these actors.
  const names = testNames(`test-sse-${process.pid}`);

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'sse_test' }).asPromise();
    client = new ActorClient(REDIS_URL, conn, testKinds, names);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds: testKinds, logger, names });

    const router = new Router<GatewayState>();
    router.get('/replies/:messageId', async (ctx) => {
      await streamReplies(ctx, client, client.names.replies(ctx.params.messageId), { logger });
    });
    router.get('/tracked/:messageId', async (ctx) => {
      const stream = client.names.replies(ctx.params.messageId);
      const lastEventId = lastEventIdOf(ctx);
      const heartbeatMs = typeof ctx.query.heartbeatMs === 'string' ? Number(ctx.query.heartbeatMs) : undefined;
      const readerStopped = deferred();
      const handle = await streamEvents(ctx, (signal) => tracked(client.replies(stream, { lastEventId, signal }), () => readerStopped.resolve()), {
        heartbeatMs,
        logger,
      });
      observed.set(ctx.params.messageId, { finished: handle.finished, readerStopped: readerStopped.promise });
    });
    router.get('/stoppable/:messageId', async (ctx) => {
      const stopper = new AbortController();
      stoppers.set(ctx.params.messageId, stopper);
      const stream = client.names.replies(ctx.params.messageId);
      const handle = await streamEvents(ctx, (signal) => client.replies(stream, { signal }), { signal: stopper.signal, logger });
      observed.set(ctx.params.messageId, { finished: handle.finished, readerStopped: handle.finished.then(() => undefined) });
    });
    router.get('/scripted/:ending', async (ctx) => {
      const ending = ctx.params.ending;
      async function* events(): AsyncGenerator<ReplyEvent> {
        yield { id: '1-0', event: 'token', data: { text: 'first' } };
        if (ending === 'api-error') throw new ApiError(409, 'conflict', 'the game moved on', { turn: 3 });
        if (ending === 'fault') throw new Error('secret internals');
      }
      await streamEvents(ctx, events(), { logger });
    });
    const app = createGatewayApp({ logger, readinessChecks: {} });
    app.use(router.routes());
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  });

  after(async function () {
    await server?.close();
    await workers?.close();
    await client?.close();
    await conn?.close();
    await mongo?.stop();
    await deleteRedisPrefix(names.prefix);
  });

  async function echo(text: string) {
    const sent = await client.send({ actor: { kind: 'counter', id: `${run}-${randomUUID().slice(0, 8)}` }, ownerId: 'u1', type: 'echo', payload: { text } });
    return sent;
  }

  const events = (items: Array<Extract<SseItem, { kind: 'event' }>>) => items.map((e) => [e.event, JSON.parse(e.data)]);

  it('streams every event in order with the Redis entry id, then ends the response after done', async function () {
    const sent = await echo('a b c');
    const connection = await openSse(`${server.url}/replies/${sent.messageId}`);
    expect(connection.response.status).to.equal(200);
    expect(connection.response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const received = await withDeadline(readEvents(connection), 20_000, 'the stream to end after done');
    expect(events(received)).to.deep.equal([
      ['token', { text: 'a' }],
      ['token', { text: 'b' }],
      ['token', { text: 'c' }],
      ['reply', { text: 'a b c' }],
      ['done', { messageId: sent.messageId }],
    ]);
    const stored = await client.readAll(sent.replyStream);
    expect(received.map((e) => e.id)).to.deep.equal(stored.map((e) => e.id));
    expect(connection.raw()).not.to.include('[object Object]');
    expect(connection.raw()).not.to.include('event: close');
    // Before any event, how long a client should wait before it reconnects with Last-Event-ID.
    expect(connection.raw()).to.match(new RegExp(`^: ?ok\n\nretry: ${SSE_RETRY_MS}\n`));
  });

  it('resumes after Last-Event-ID (header or lastEventId query) with only the later events', async function () {
    const sent = await echo('one two three');
    await readEvents(await openSse(`${server.url}/replies/${sent.messageId}`));
    const stored = await client.readAll(sent.replyStream);
    const after = stored[1].id;
    const expected = stored.slice(2).map((e) => [e.event, e.data]);

    const byHeader = await readEvents(await openSse(`${server.url}/replies/${sent.messageId}`, { 'last-event-id': after }));
    expect(events(byHeader)).to.deep.equal(expected);
    expect(byHeader[0].id).to.equal(stored[2].id);

    const byQuery = await readEvents(await openSse(`${server.url}/replies/${sent.messageId}?lastEventId=${after}`));
    expect(events(byQuery)).to.deep.equal(expected);
  });

  it('answers a malformed Last-Event-ID with a 400 JSON error, not a stream', async function () {
    const response = await fetch(`${server.url}/replies/${randomUUID()}`, { headers: { 'last-event-id': 'not-an-id' } });
    expect(response.status).to.equal(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('bad_request');
    expect(body.error.message).to.match(/Last-Event-ID/);
  });

  it('stops reading the reply stream when the client disconnects', async function () {
    const messageId = randomUUID(); // nothing will ever be published: the reader blocks on XREAD
    const connection = await openSse(`${server.url}/tracked/${messageId}`);
    const first = await connection.items.next();
    expect(first.value).to.deep.equal({ kind: 'comment', text: 'ok' });
    const watched = observed.get(messageId)!;
    connection.close();
    expect(await withDeadline(watched.finished, 10_000, 'the writer to notice the disconnect')).to.equal('disconnected');
    await withDeadline(watched.readerStopped, 10_000, 'the reply reader to stop');
  });

  it('sends heartbeat comments while the stream is idle', async function () {
    const messageId = randomUUID();
    const connection = await openSse(`${server.url}/tracked/${messageId}?heartbeatMs=40`);
    const comments: string[] = [];
    for await (const item of connection.items) {
      if (item.kind === 'comment') comments.push(item.text);
      if (comments.filter((c) => c === 'heartbeat').length === 2) break;
    }
    // The opening `retry:` frame carries a comment line beside the field (see gateway/sse.ts).
    expect(comments).to.deep.equal(['ok', 'reconnect with Last-Event-ID', 'heartbeat', 'heartbeat']);
    connection.close();
    expect(await withDeadline(observed.get(messageId)!.finished, 10_000, 'the stream to end')).to.equal('disconnected');
  });

  it('ends the response without a terminal event when the caller stops it (shutdown), so clients resume elsewhere', async function () {
    const messageId = randomUUID();
    const connection = await openSse(`${server.url}/stoppable/${messageId}`);
    expect((await connection.items.next()).value).to.deep.equal({ kind: 'comment', text: 'ok' });
    expect((await connection.items.next()).value).to.deep.equal({ kind: 'comment', text: 'reconnect with Last-Event-ID' });
    stoppers.get(messageId)!.abort();
    const rest: SseItem[] = [];
    for await (const item of connection.items) rest.push(item);
    expect(rest).to.deep.equal([{ kind: 'comment', text: 'closing' }]);
    expect(await observed.get(messageId)!.finished).to.equal('stopped');
  });

  it('leaves no listener on the caller\'s signal once the stream has ended (a long-lived signal would collect them)', async function () {
    const sent = await echo('one listener');
    const connection = await openSse(`${server.url}/stoppable/${sent.messageId}`);
    const received = await withDeadline(readEvents(connection), 20_000, 'the stream to end after done');
    expect(received.at(-1)?.event).to.equal('done');
    expect(await observed.get(sent.messageId)!.finished).to.equal('terminal');
    expect(getEventListeners(stoppers.get(sent.messageId)!.signal, 'abort')).to.have.length(0);
  });

  it('turns an error thrown mid-stream into a terminal error event (ApiError as is, faults opaque)', async function () {
    const apiError = await readEvents(await openSse(`${server.url}/scripted/api-error`));
    expect(events(apiError)).to.deep.equal([
      ['token', { text: 'first' }],
      ['error', { code: 'conflict', message: 'the game moved on', details: { turn: 3 } }],
    ]);
    expect(apiError[1].id).to.equal(undefined);

    const fault = await readEvents(await openSse(`${server.url}/scripted/fault`));
    expect(events(fault)[1]).to.deep.equal(['error', { code: 'internal_server_error', message: 'Internal Server Error', details: {} }]);

    const silent = await readEvents(await openSse(`${server.url}/scripted/silent`));
    expect(events(silent)[1][0]).to.equal('error');
    expect(events(silent)[1][1]).to.include({ code: 'stream_ended' });
  });
});

describe('koa-sse-stream containment (child process)', function () {
  it('leaves no timer and writes nothing to the console: the process exits on its own after streams open and close', async function () {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../support/sse-containment-child.ts', import.meta.url))], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // A leaked interval (koa-sse-stream's ping) would keep the child alive forever.
      const code = await withDeadline(exited, 25_000, 'the child process to exit on its own');
      expect(stderr, 'stderr').to.equal('');
      expect(code, `exit code (stderr: ${stderr})`).to.equal(0);
      const lines = stdout.trim().split('\n');
      expect(lines, 'stdout holds only the report line').to.have.length(1);
      const report = JSON.parse(lines[0]) as { timersBefore: number; timersAfter: number; finished: number[]; endings: string[] };
      expect(report.timersAfter, 'timers left once every stream has ended').to.equal(report.timersBefore);
      expect(report.finished).to.deep.equal([4, 4, 4]);
      expect(report.endings).to.deep.equal(['terminal', 'terminal', 'terminal', 'disconnected', 'disconnected', 'disconnected']);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
