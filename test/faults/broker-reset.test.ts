/**
 * Redis comes back without its data (issue 14, point 2), with real processes: a `troupe mongo`, a
 * worker and a gateway running the test kinds, on a redis-server of the test's own with persistence off.
 *
 * Each counter actor gets a slow `add` (its turn sleeps, holding the actor) followed by a second `add`
 * queued behind it, whose client waits over HTTP JSON, SSE or MCP. With every turn in flight and every
 * second message posted, Redis is restarted empty. Every waiting client, the slow ones included, must be
 * answered `broker_reset` (none waits for its reply timeout); the gateway must record its deployment in
 * the new Redis; and a retry of each message with the same Idempotency-Key must be applied exactly
 * once: the turns in flight at the loss must not commit after it.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createParser } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { pollUntil, withDeadline } from '../support/async.js';
import { startRestartableRedis, type RestartableRedis } from '../support/restartable-redis.js';
import { spawnScript, startTestWorker, type ChildHandle } from '../support/runtime-processes.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, startTroupeMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

/** Actors per transport of the waiting client. */
const ACTORS_PER_TRANSPORT = 3;
const TRANSPORTS = ['json', 'sse', 'mcp'] as const;
type Transport = (typeof TRANSPORTS)[number];
/** Long enough that no held turn ends before the loss is noticed; each retry of a held message sleeps as long. */
const HOLD_MS = 8_000;
/** A bound on any one wait, so a client that hangs fails the test instead of stalling it. */
const ANSWER_BOUND_MS = 60_000;

interface Answer {
  status?: number;
  code?: string;
  retryAfter?: string | null;
  reply?: { count?: number };
  /** SSE: a `started` event arrived (the turn is running). */
  started?: boolean;
}

describe('Redis restarted without its data (real processes)', function () {
  this.timeout(240_000);
  const spawned: TroupeProcess[] = [];
  const children: ChildHandle[] = [];
  let redis: RestartableRedis | undefined;
  let probe: Redis | undefined;
  let mcp: Client | undefined;
  let base = '';
  let key = '';
  const names = new RedisNames(`test-broker-reset-${process.pid}`);
  let gateway: ChildHandle | undefined;

  before(async function () {
    redis = await startRestartableRedis({ persistence: false });
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    const env = troupeEnv({
      REDIS_URL: redis.url,
      REDIS_PREFIX: names.prefix,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'broker_reset',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
    });
    await startTroupeMongo(mongoPort, env, spawned);
    key = await createUserKey('reset', env);
    const worker = startTestWorker(env as Record<string, string>);
    gateway = spawnScript('test/support/gateway-main.ts', env as Record<string, string>);
    children.push(worker, gateway);
    await pollUntil(
      async () => {
        const exited = children.find((c) => c.child.exitCode !== null);
        if (exited) throw new Error(`a process exited while starting:\n${exited.output()}`);
        return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 90_000, what: `${base}/readyz` },
    );
    probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    mcp = new Client({ name: 'broker-reset-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });

  after(async function () {
    await mcp?.close().catch(() => undefined);
    probe?.disconnect();
    await Promise.all(children.map((c) => c.kill()));
    await Promise.all(spawned.map((p) => p.kill()));
    await redis?.remove();
  });

  const headers = () => ({ 'x-api-key': key, 'content-type': 'application/json' });
  const addBody = (seq: number, sleepMs?: number) => JSON.stringify({ type: 'add', payload: { n: 1, seq, ...(sleepMs ? { sleepMs } : {}) } });

  async function postJson(actor: string, body: string, idempotencyKey?: string): Promise<Answer> {
    const res = await fetch(`${base}/actors/counter/${actor}/messages`, { method: 'POST', headers: { ...headers(), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, body });
    const json = (await res.json()) as { error?: { code?: string }; reply?: { count?: number } };
    return { status: res.status, code: json.error?.code, retryAfter: res.headers.get('retry-after'), reply: json.reply };
  }

  /** Posts with Accept: text/event-stream; `onStarted` fires at the `started` event. */
  async function postSse(actor: string, body: string, idempotencyKey?: string, onStarted?: () => void): Promise<Answer> {
    const res = await fetch(`${base}/actors/counter/${actor}/messages`, {
      method: 'POST',
      headers: { ...headers(), accept: 'text/event-stream', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body,
    });
    const answer: Answer = { status: res.status };
    const parser = createParser({
      onEvent: (e) => {
        const data = JSON.parse(e.data) as { code?: string; count?: number };
        if (e.event === 'started') {
          answer.started = true;
          onStarted?.();
        }
        if (e.event === 'reply') answer.reply = data;
        if (e.event === 'error') answer.code = data.code ?? 'error';
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    return answer;
  }

  async function callMcp(actor: string): Promise<Answer> {
    const result = (await mcp!.callTool({ name: 'counter_add', arguments: { counter: actor, n: 1 } })) as {
      isError?: boolean;
      structuredContent?: { count?: number };
      _meta?: Record<string, { code?: string } | undefined>;
    };
    return result.isError ? { code: result._meta?.['troupe/error']?.code ?? 'error' } : { reply: result.structuredContent };
  }

  /** The second message of `actor`, over its transport: JSON and SSE with an Idempotency-Key, MCP without (it has none). */
  const sendSecond = (transport: Transport, actor: string): Promise<Answer> =>
    transport === 'json' ? postJson(actor, addBody(1), `${actor}-second`) : transport === 'sse' ? postSse(actor, addBody(1), `${actor}-second`) : callMcp(actor);

  it('answers every waiting client broker_reset at once, records the deployment again, and applies each retry once', async function () {
    const actors = TRANSPORTS.flatMap((transport) => Array.from({ length: ACTORS_PER_TRANSPORT }, (_, i) => ({ transport, id: `reset-${transport}-${i}` })));

    // Held turns: each actor's first message sleeps; its SSE client hears `started` once the turn runs.
    let started = 0;
    const held = actors.map((a) => postSse(a.id, addBody(0, HOLD_MS), `${a.id}-first`, () => (started += 1)));
    await pollUntil(() => started === actors.length, { timeoutMs: 30_000, what: 'every held turn to start' });
    const seconds = actors.map((a) => sendSecond(a.transport, a.id));
    // Every second message is in its actor's mailbox (behind the running first): its client now waits.
    await pollUntil(async () => (await Promise.all(actors.map((a) => probe!.xlen(names.mailbox({ kind: 'counter', id: a.id }))))).every((n) => n === 2), {
      timeoutMs: 30_000,
      what: 'every second message to be posted',
    });

    const deploymentBefore = await probe!.get(names.deployment());
    expect(deploymentBefore, 'the deployment id recorded at start').to.be.a('string');
    // Whether Redis lost its data is told by a key only this test writes: the troupe processes write
    // their own keys again (deployment, liveness, queues) as soon as they reconnect.
    const lostWithTheData = `${names.prefix}:test:written-before-restart`;
    await probe!.set(lostWithTheData, '1');
    await redis!.stop();
    await redis!.start();
    expect(await probe!.exists(lostWithTheData), 'Redis came back without its data').to.equal(0);
    expect(await probe!.xlen(names.mailbox({ kind: 'counter', id: actors[0]!.id })), 'the mailboxes are gone with it').to.equal(0);

    const heldAnswers = await withDeadline(Promise.all(held), ANSWER_BOUND_MS, 'the held SSE clients to be answered');
    const secondAnswers = await withDeadline(Promise.all(seconds), ANSWER_BOUND_MS, 'the waiting clients to be answered');
    for (const [i, answer] of heldAnswers.entries()) expect(answer, `held ${actors[i]!.id}`).to.include({ status: 200, started: true, code: 'broker_reset' });
    for (const [i, answer] of secondAnswers.entries()) {
      const { transport, id } = actors[i]!;
      expect(answer.code, `${transport} ${id}`).to.equal('broker_reset');
      if (transport === 'json') expect(answer, `${id}: 503 with Retry-After`).to.include({ status: 503 }).and.have.property('retryAfter').that.is.a('string');
      if (transport === 'sse') expect(answer.status, id).to.equal(200);
    }
    expect(gateway!.output()).to.include('Redis came back without its data');

    // The gateway recorded its deployment in the new Redis, after checking MongoDB's id as at start.
    await pollUntil(async () => (await probe!.get(names.deployment())) === deploymentBefore, { timeoutMs: 10_000, what: 'the deployment id to be written again' });

    // Retries: the same Idempotency-Keys (MCP without one); each message is applied once.
    const retries = await withDeadline(
      Promise.all(actors.map(async (a) => ({ first: await postJson(a.id, addBody(0, HOLD_MS), `${a.id}-first`), second: await sendSecond(a.transport, a.id) }))),
      ANSWER_BOUND_MS,
      'the retries to be answered',
    );
    for (const [i, { first, second }] of retries.entries()) {
      expect(first, `${actors[i]!.id} first retry`).to.include({ status: 200 });
      expect(second.code, `${actors[i]!.id} second retry`).to.equal(undefined);
    }
    // The held turns slept as long as the retries of the first messages, and started earlier: they are
    // over, and none committed after the loss (the state would count them twice).
    for (const a of actors) {
      const res = await fetch(`${base}/actors/counter/${a.id}`, { headers: { 'x-api-key': key } });
      const { state } = (await res.json()) as { state: { count: number; seen: number[] } };
      expect(state, a.id).to.deep.include({ count: 2 });
      // counter_add (MCP) sends no sequence number.
      expect([...state.seen].sort(), a.id).to.deep.equal(a.transport === 'mcp' ? [0] : [0, 1]);
    }
  });
});
