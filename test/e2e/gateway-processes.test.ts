/**
 * troupe as operators run it: a `troupe mongo`, one `troupe worker` and two `troupe gateway`
 * processes sharing Redis. Clients speak HTTP, SSE and MCP to either gateway.
 */
import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createUserKey, spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { pollUntil } from '../support/async.js';
import { openSse, readEvents } from '../support/sse-client.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

interface Event {
  event: string;
  id?: string;
  data: unknown;
}

/** POSTs a message asking for SSE and reads the stream to its end. */
async function postStreaming(url: string, key: string, body: unknown): Promise<{ status: number; messageId: string | null; events: Event[] }> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body) });
  const events: Event[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', id: e.id, data: JSON.parse(e.data) }) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return { status: res.status, messageId: res.headers.get('x-message-id'), events };
}

describe('gateway and worker processes (HTTP, SSE, MCP)', function () {
  this.timeout(120_000);
  const processes: TroupeProcess[] = [];
  let env: NodeJS.ProcessEnv;
  let gateways: string[] = [];
  let alice = '';
  let bob = '';

  const run = (args: string[]) => {
    const p = spawnTroupe(args, env);
    processes.push(p);
    return p;
  };
  const createUser = (name: string) => createUserKey(name, env);

  const redisPrefix = `test-gw-${process.pid}-${Date.now().toString(36)}`;

  before(async function () {
    const [mongoPort, portA, portB] = await Promise.all([freePort(), freePort(), freePort()]);
    env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'processes',
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
    });
    const mongo = run(['mongo', '--port', String(mongoPort)]);
    await pollUntil(() => mongo.stdout().includes('listening'), { timeoutMs: 30_000, what: 'troupe mongo' });
    [alice, bob] = await Promise.all([createUser('alice'), createUser('bob')]);
    run(['worker']);
    env = { ...env, PORT: String(portA) };
    run(['gateway']);
    env = { ...env, PORT: String(portB) };
    run(['gateway']);
    gateways = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    for (const base of gateways) {
      await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });
    }
  });

  after(async function () {
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('streams an actor reply as SSE, and another gateway resumes the same stream after Last-Event-ID', async function () {
    const first = await postStreaming(`${gateways[0]}/actors/echo/room-1/messages`, alice, { type: 'say', payload: { text: 'one two three' } });
    expect(first.status).to.equal(200);
    expect(first.events.map((e) => e.event)).to.deep.equal(['token', 'token', 'token', 'reply', 'done']);
    expect(first.events[3].data).to.deep.equal({ text: 'one two three', count: 1 });
    const resumed = await openSse(`${gateways[1]}/replies/${first.messageId}`, { authorization: `Bearer ${alice}`, 'last-event-id': first.events[1].id! });
    const rest = await readEvents(resumed);
    expect(rest.map((e) => e.event)).to.deep.equal(['token', 'reply', 'done']);
    expect(rest.map((e) => e.id)).to.deep.equal(first.events.slice(2).map((e) => e.id));
  });

  it('answers JSON without SSE, applies an idempotency key once, and hides the actor from another user', async function () {
    const send = (base: string, key: string, idem?: string) =>
      fetch(`${base}/actors/echo/room-2/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idem ? { 'idempotency-key': idem } : {}) },
        body: JSON.stringify({ type: 'say', payload: { text: 'hi' } }),
      });
    const a = await send(gateways[0], alice, `k-${process.pid}`);
    const b = await send(gateways[1], alice, `k-${process.pid}`);
    expect(a.status).to.equal(200);
    expect(b.headers.get('x-message-id')).to.equal(a.headers.get('x-message-id'));
    expect(((await b.json()) as { reply: unknown }).reply).to.deep.equal({ text: 'hi', count: 1 });
    const state = await fetch(`${gateways[1]}/actors/echo/room-2`, { headers: { 'x-api-key': alice } });
    expect(((await state.json()) as { state: unknown }).state).to.deep.equal({ count: 1 });
    expect((await fetch(`${gateways[0]}/actors/echo/room-2`, { headers: { 'x-api-key': bob } })).status).to.equal(404);
    const intruder = await send(gateways[0], bob);
    expect(intruder.status).to.equal(404);
    expect(((await intruder.json()) as { error: { code: string } }).error.code).to.equal('not_found');
  });

  it('refuses bad input with JSON errors and never enqueues it', async function () {
    const post = (path: string, body: unknown, key = alice) =>
      fetch(`${gateways[0]}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/actors/echo/room-3/messages', { type: 'say', payload: { text: '' } })).status).to.equal(400);
    expect((await post('/actors/echo/room-3/messages', { type: 'shout', payload: {} })).status).to.equal(400);
    expect((await post('/actors/nope/room-3/messages', { type: 'say', payload: { text: 'x' } })).status).to.equal(404);
    expect((await post('/actors/echo/room-3/messages', { type: 'say', payload: { text: 'x' } }, 'trp_bad')).status).to.equal(401);
    expect((await fetch(`${gateways[0]}/actors/echo/room-3`, { headers: { 'x-api-key': alice } })).status).to.equal(404);
  });

  it('serves the echo tool over MCP (official SDK client, stateless HTTP) on either gateway', async function () {
    for (const base of gateways) {
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include('echo');
      const result = await client.callTool({ name: 'echo', arguments: { text: 'via mcp', channel: 'mcp-room' } });
      expect(result.isError ?? false).to.equal(false);
      expect((result.structuredContent as { text: string }).text).to.equal('via mcp');
      await client.close();
    }
  });

  it('runs a batch job and reports its progress over HTTP and SSE', async function () {
    const messages = Array.from({ length: 12 }, (_, i) => ({ id: `batch-${i % 4}`, type: 'say', payload: { text: `item ${i}` } }));
    const res = await fetch(`${gateways[0]}/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'echo', messages }),
    });
    expect(res.status).to.equal(202);
    const { batchId } = (await res.json()) as { batchId: string };
    const progress = await readEvents(await openSse(`${gateways[1]}/batches/${batchId}/events`, { authorization: `Bearer ${alice}` }));
    expect(progress[progress.length - 1].event).to.equal('done');
    expect(JSON.parse(progress[progress.length - 1].data)).to.deep.include({ total: 12, done: 12, failed: 0, finished: true });
    const final = await fetch(`${gateways[0]}/batches/${batchId}`, { headers: { authorization: `Bearer ${alice}` } });
    expect(await final.json()).to.deep.include({ done: 12, finished: true });
    expect((await fetch(`${gateways[0]}/batches/${batchId}`, { headers: { authorization: `Bearer ${bob}` } })).status).to.equal(404);
    // Each message's reply, a page at a time, from any gateway.
    const page = (await (await fetch(`${gateways[1]}/batches/${batchId}/results?limit=10`, { headers: { authorization: `Bearer ${alice}` } })).json()) as {
      results: Array<{ actorId: string; ok: boolean; reply: { text: string } }>;
      next: string;
    };
    const last = (await (await fetch(`${gateways[0]}/batches/${batchId}/results?limit=10&after=${page.next}`, { headers: { authorization: `Bearer ${alice}` } })).json()) as typeof page;
    const texts = [...page.results, ...last.results].map((r) => r.reply.text).sort();
    expect(texts).to.deep.equal(messages.map((m) => m.payload.text).sort());
    expect(last.next).to.equal(null);
    expect([...page.results, ...last.results].every((r) => r.ok && r.actorId.startsWith('batch-'))).to.equal(true);
    expect((await fetch(`${gateways[0]}/batches/${batchId}/results`, { headers: { authorization: `Bearer ${bob}` } })).status).to.equal(404);
    expect((await fetch(`${gateways[0]}/batches/${batchId}/results?after=nope`, { headers: { authorization: `Bearer ${alice}` } })).status).to.equal(400);
  });

  it('shuts every process down cleanly on SIGTERM', async function () {
    const running = processes.filter((p) => p.exitStatus() === undefined);
    for (const p of running) p.child.kill('SIGTERM');
    const statuses = await Promise.all(running.map((p) => p.exited));
    expect(statuses.map((s) => s.code), running.map((p) => p.stderr()).join('\n')).to.deep.equal(running.map(() => 0));
  });
});
