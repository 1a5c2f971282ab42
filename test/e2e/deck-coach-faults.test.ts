/**
 * The deck coach under faults, with troupe as operators run it: `troupe mongo`, the MTG data seeded, one
 * `troupe gateway` and `troupe worker` processes whose coach streams a scripted OpenAI-compatible model
 * (test/support/fake-openai-server.ts) and reaches its tools at the gateway's /mcp.
 *
 * 1. A worker killed with SIGKILL while the coach waits on the model: a second worker takes the turn
 *    over, the SSE client still connected to the gateway gets the answer, and the conversation holds
 *    the message and its answer once.
 * 2. POST /conversations/:id/cancel while the model is held: the stream ends with `error` code
 *    `cancelled`, nothing of the turn is committed, and the next message is answered normally.
 */
import { expect } from 'chai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { deferred, pollUntil, withDeadline } from '../support/async.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server.js';
import { createUserKey, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

type Structured = Record<string, unknown>;

interface CoachEvent {
  event: string;
  id: string | undefined;
  data: Structured;
}

interface ConversationView {
  conversation_id: string;
  messages: Array<{ role: 'user' | 'assistant'; content: string; at: string }>;
}

/** A POST /chat read as SSE while it arrives: events so far, waits for one, and the whole stream. */
interface ChatStream {
  events: CoachEvent[];
  /** The response's status and X-Message-Id, once its headers are in. */
  response: Promise<{ status: number; messageId: string | null }>;
  /** Resolves with the first event (already received or still to come) that matches. */
  waitFor(match: (event: CoachEvent) => boolean, what: string): Promise<CoachEvent>;
  /** Every event, once the server ends the stream. */
  ended: Promise<CoachEvent[]>;
  /** Disconnects (cleanup). */
  close(): void;
}

function openChat(base: string, apiKey: string, body: Structured): ChatStream {
  const abort = new AbortController();
  const events: CoachEvent[] = [];
  const waiters: Array<{ match: (event: CoachEvent) => boolean; resolve: (event: CoachEvent) => void; reject: (error: Error) => void; what: string }> = [];
  const headers = deferred<{ status: number; messageId: string | null }>();
  let finished = false;
  const settleWaiters = () => {
    for (const waiter of [...waiters]) {
      const found = events.find(waiter.match);
      if (found) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(found);
      } else if (finished) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.reject(new Error(`the stream ended without ${waiter.what}: ${JSON.stringify(events)}`));
      }
    }
  };
  const ended = (async () => {
    try {
      const response = await fetch(`${base}/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      headers.resolve({ status: response.status, messageId: response.headers.get('x-message-id') });
      if (response.status !== 200) throw new Error(`POST /chat answered ${response.status}: ${await response.text()}`);
      const parser = createParser({
        onEvent: (m: EventSourceMessage) => {
          events.push({ event: m.event ?? 'message', id: m.id, data: JSON.parse(m.data) as Structured });
          settleWaiters();
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      return events;
    } finally {
      finished = true;
      settleWaiters();
    }
  })();
  // The test awaits `ended` itself; this only keeps an early failure from being reported as unhandled.
  ended.catch(() => undefined);
  return {
    events,
    response: Promise.race([headers.promise, ended.then(() => headers.promise)]),
    waitFor(match, what) {
      return new Promise<CoachEvent>((resolve, reject) => {
        waiters.push({ match, resolve, reject, what });
        settleWaiters();
      });
    },
    ended,
    close: () => abort.abort(),
  };
}

const contentOf = (events: CoachEvent[]) => events.filter((e) => e.event === 'content').map((e) => e.data.text as string).join('');
const named = (events: CoachEvent[], name: string) => events.filter((e) => e.event === name);
/** The user turns a chat-completions request carries (the model's view of the conversation). */
const userTurns = (messages: Array<{ role: string; content: unknown }>) => messages.filter((m) => m.role === 'user').map((m) => m.content);

describe('deck coach under faults: worker crash and cancel mid-turn (real processes, OpenAI-compatible model)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const workers: TroupeProcess[] = [];
  const streams: ChatStream[] = [];
  const releases: Array<() => void> = [];
  const redisPrefix = `test-coach-faults-${process.pid}-${Date.now().toString(36)}`;
  let env: NodeJS.ProcessEnv;
  let base = '';
  let key = '';
  let fake: FakeOpenAiServer | undefined;

  /** A `troupe worker` whose coach streams the fake model and calls tools on the gateway's /mcp; resolves once it consumes. */
  async function startWorker(model: FakeOpenAiServer): Promise<TroupeProcess> {
    const worker = spawnTroupe(['worker'], {
      ...env,
      LLM_PROVIDER: 'openai-compatible',
      OPENAI_BASE_URL: model.url,
      LARGE_LANGUAGE_MODEL: 'fake-model',
      GATEWAY_URL: base,
    });
    processes.push(worker);
    workers.push(worker);
    await pollUntil(
      () => {
        if (worker.exitStatus()) throw new Error(`troupe worker exited (${JSON.stringify(worker.exitStatus())}): ${worker.stdout()}\n${worker.stderr()}`);
        return worker.stdout().includes('workers started');
      },
      { timeoutMs: 60_000, what: 'troupe worker to start its workers' },
    );
    return worker;
  }

  const chat = (body: Structured) => {
    const stream = openChat(base, key, body);
    streams.push(stream);
    return stream;
  };

  const conversation = async (id: string): Promise<ConversationView> => {
    const response = await fetch(`${base}/conversations/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await response.text();
    expect(response.status, text).to.equal(200);
    return JSON.parse(text) as ConversationView;
  };

  /** A stream that ended normally: ids, no error, `state` then `done`; returns its conversation id. */
  function expectAnswered(events: CoachEvent[]): string {
    expect(named(events, 'error'), JSON.stringify(events)).to.deep.equal([]);
    expect(events.at(-2)?.event, JSON.stringify(events)).to.equal('state');
    expect(events.at(-1)?.event, JSON.stringify(events)).to.equal('done');
    const metadata = named(events, 'metadata');
    expect(metadata, JSON.stringify(events)).to.not.be.empty;
    return metadata[0]!.data.conversation_id as string;
  }

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: redisPrefix,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // Nothing from the calling shell may point the coach at another model or MCP server.
      LLM_PROVIDER: 'offline',
      LARGE_LANGUAGE_MODEL: '',
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      COACH_MCP_URL: '',
      COACH_MCP_HEADER: '',
      GATEWAY_URL: '',
    });
    await startSeededMongo(mongoPort, env, processes);
    key = await createUserKey('faulty-player', env);
    // The gateway serves the tools; only the workers talk to the model.
    const gateway = spawnTroupe(['gateway'], { ...env, PORT: String(port) });
    processes.push(gateway);
    await pollUntil(
      () => {
        if (gateway.exitStatus()) throw new Error(`troupe gateway exited: ${gateway.stderr()}`);
        return gateway.stdout().includes('troupe gateway is up');
      },
      { timeoutMs: 60_000, what: 'troupe gateway to listen' },
    );
  });

  beforeEach(async function () {
    fake = await startFakeOpenAiServer();
  });

  afterEach(async function () {
    for (const release of releases.splice(0)) release();
    for (const stream of streams.splice(0)) stream.close();
    await Promise.all(
      workers.splice(0).map(async (worker) => {
        if (worker.exitStatus()) return;
        worker.child.kill('SIGTERM');
        await withDeadline(worker.exited, 20_000, 'troupe worker to exit on SIGTERM').catch(() => worker.kill());
      }),
    );
    await fake?.close();
    fake = undefined;
  });

  after(async function () {
    for (const release of releases.splice(0)) release();
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('kill -9 of the worker while the model answers: another worker re-runs the turn, the client gets the answer, the conversation holds it once', async function () {
    this.timeout(90_000);
    const model = fake!;
    const held = deferred();
    releases.push(() => held.resolve());
    model.enqueue({ hold: held.promise, then: { text: 'Answer from the worker that died.' } });
    model.respondWith(() => ({ text: 'Answer from the model.' }));
    const question = 'Hello coach, what can you help me with today?';

    const first = await startWorker(model);
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });
    const stream = chat({ message: question });
    // The turn is inside the model call, and its first events are out.
    await model.nthRequest(1);
    await stream.waitFor((e) => e.event === 'metadata', 'the metadata event');
    expect(contentOf(stream.events), 'nothing answered yet').to.equal('');

    const status = await first.kill().then(() => first.exitStatus());
    expect(status?.signal).to.equal('SIGKILL');
    held.resolve();
    await startWorker(model);

    const retried = await model.nthRequest(2);
    expect(userTurns(retried.messages), 'the re-run sends the message once').to.deep.equal([question]);
    const events = await stream.ended;
    expect((await stream.response).status).to.equal(200);
    const conversationId = expectAnswered(events);
    expect(contentOf(events).trim()).to.equal('Answer from the model.');
    expect(named(events, 'metadata'), 'the turn ran on both workers').to.have.length(2);
    expect(new Set(named(events, 'metadata').map((e) => e.data.conversation_id))).to.deep.equal(new Set([conversationId]));
    expect(model.requests, 'one model call per run of the turn').to.have.length(2);

    const view = await conversation(conversationId);
    expect(view.conversation_id).to.equal(conversationId);
    expect(view.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(view.messages[0]!.content).to.equal(question);
    expect(view.messages[1]!.content).to.equal('Answer from the model.');
  });

  it('POST /conversations/:id/cancel while the model answers: error `cancelled`, nothing committed, the next message is answered', async function () {
    this.timeout(60_000);
    const model = fake!;
    await startWorker(model);
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });

    // An answered first turn creates the conversation.
    model.enqueue({ text: 'First answer.' });
    const opened = await chat({ message: 'First question for the coach.' }).ended;
    const conversationId = expectAnswered(opened);
    expect(contentOf(opened).trim()).to.equal('First answer.');
    const before = await conversation(conversationId);
    expect(before.messages.map((m) => [m.role, m.content])).to.deep.equal([
      ['user', 'First question for the coach.'],
      ['assistant', 'First answer.'],
    ]);

    // The second turn waits on the model until it is cancelled.
    const held = deferred();
    releases.push(() => held.resolve());
    model.enqueue({ hold: held.promise, then: { text: 'An answer nobody should see.' } });
    const stream = chat({ message: 'Second question, to be cancelled.', conversation_id: conversationId });
    await model.nthRequest(2);
    expect((await stream.response).status).to.equal(200);
    const cancel = await fetch(`${base}/conversations/${conversationId}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    const cancelBody = await cancel.text();
    expect(cancel.status, cancelBody).to.equal(202);
    expect(JSON.parse(cancelBody)).to.deep.include({ cancelling: true });

    const events = await stream.ended;
    expect(events.at(-1)?.event, JSON.stringify(events)).to.equal('error');
    expect(events.at(-1)!.data.code, JSON.stringify(events.at(-1))).to.equal('cancelled');
    expect(named(events, 'done')).to.deep.equal([]);
    expect(named(events, 'state')).to.deep.equal([]);
    expect(contentOf(events)).to.equal('');
    held.resolve();

    const after = await conversation(conversationId);
    expect(after.messages, 'a cancelled turn applies nothing').to.deep.equal(before.messages);

    // The conversation goes on as if the cancelled message had never been sent.
    model.enqueue({ text: 'Third answer.' });
    const next = await chat({ message: 'Third question for the coach.', conversation_id: conversationId }).ended;
    expect(expectAnswered(next)).to.equal(conversationId);
    expect(contentOf(next).trim()).to.equal('Third answer.');
    expect(model.requests).to.have.length(3);
    expect(userTurns(model.requests[2]!.messages), 'the model never hears the cancelled message').to.deep.equal(['First question for the coach.', 'Third question for the coach.']);
    const final = await conversation(conversationId);
    expect(final.messages.map((m) => [m.role, m.content])).to.deep.equal([
      ['user', 'First question for the coach.'],
      ['assistant', 'First answer.'],
      ['user', 'Third question for the coach.'],
      ['assistant', 'Third answer.'],
    ]);
  });

  it('cancels the opening turn of a new conversation (its owner is the sender of the message it runs)', async function () {
    this.timeout(60_000);
    const model = fake!;
    await startWorker(model);
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });
    const held = deferred();
    releases.push(() => held.resolve());
    model.enqueue({ hold: held.promise, then: { text: 'An answer nobody should see.' } });
    const stream = chat({ message: 'An opening question, to be cancelled.' });
    await model.nthRequest(1);
    const metadata = await stream.waitFor((e) => e.event === 'metadata', 'the metadata event');
    const conversationId = String(metadata.data.conversation_id);
    const cancel = await fetch(`${base}/conversations/${conversationId}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(cancel.status, await cancel.text()).to.equal(202);
    const events = await stream.ended;
    expect(events.at(-1)?.data.code, JSON.stringify(events.at(-1))).to.equal('cancelled');
    held.resolve();
    const read = await fetch(`${base}/conversations/${conversationId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(read.status, 'nothing of the cancelled opening turn was applied').to.equal(404);
  });
});
