/**
 * Dependency outages with real processes: a `troupe mongo`, a `troupe worker` and a `troupe gateway` on
 * a redis-server of the test's own (append-only persistence on).
 *
 * Clients send to echo actors; then, with the worker paused so that each client is waiting for the
 * reply to a message it posted, Redis is stopped with SIGTERM while a probe keeps sending, and started
 * again on the same port and data directory. What clients must see: never a 500. A request that cannot
 * reach Redis is answered 503 with Retry-After and `broker_unavailable`; a request whose message was
 * posted waits through the restart for its reply (JSON and SSE alike). And nothing is applied twice:
 * each client sends to its own actor one message at a time, so the counts in the replies say how many
 * messages were applied.
 *
 * Then MongoDB is killed: a read of an actor's state is answered 503 `store_unavailable`.
 */
import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { pollUntil } from '../support/async.js';
import { startRestartableRedis, type RestartableRedis } from '../support/restartable-redis.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, startTroupeMongo, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

/** One answer to one message, in the order its client sent them. */
interface Answer {
  status: number;
  /** The error code of a JSON error, or of an SSE stream's `error` event. */
  code?: string;
  retryAfter: string | null;
  /** X-Message-Id: set once the message was posted. */
  messageId: string | null;
  /** The echo actor's count after this message (from the reply). */
  count?: number;
  /** Whether Redis had been started again when the answer arrived. */
  afterRestart: boolean;
}

interface ErrorJson {
  error?: { code?: string };
}

const CLIENTS = 8;
/** Each client's bound on messages, whatever happens. */
const MAX_MESSAGES_PER_CLIENT = 300;
/** Answers each client must have had before the stop, and after the restart, before it ends. */
const SUCCESSES_AROUND_RESTART = 3;
/** Refusals of the probe before Redis is started again (each takes the gateway's Redis client a few reconnect attempts). */
const REFUSALS_WHILE_DOWN = 2;
const PROBE_ACTOR = 'restart-probe';

describe('Redis and MongoDB outages (real processes)', function () {
  this.timeout(300_000);
  const spawned: TroupeProcess[] = [];
  let redis: RestartableRedis | undefined;
  let base = '';
  let key = '';
  let mongo: TroupeProcess | undefined;
  const names = new RedisNames(`test-redis-restart-${process.pid}`);
  const worker = () => spawned.find((p) => p.child.spawnargs[2] === 'worker')!;

  before(async function () {
    redis = await startRestartableRedis();
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    const env = troupeEnv({
      REDIS_URL: redis.url,
      REDIS_PREFIX: names.prefix,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'redis_restart',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      // The load is the point here, not the limits.
      KIND_LIMITS: 'echo:rate=none,concurrent=none',
    });
    mongo = await startTroupeMongo(mongoPort, env, spawned);
    key = await createUserKey('restart', env);
    await startWorkerAndGateway(env, base, spawned);
  });

  after(async function () {
    await Promise.all(spawned.map((p) => p.kill()));
    await redis?.remove();
  });

  /** Each process's logged errors (pino level 50 and up) and the end of its stderr. */
  const failureOutput = () =>
    spawned
      .map((p) => {
        const errors = p.stdout().split('\n').filter((line) => /"level":(50|60)/.test(line)).slice(-3).map((line) => line.slice(0, 2000));
        return [`--- troupe ${p.child.spawnargs.slice(2).join(' ')}`, ...errors, p.stderr().slice(-1500)].join('\n');
      })
      .join('\n');

  it('restarting Redis under load: 503 broker_unavailable with Retry-After or the reply, never 500, nothing applied twice', async function () {
    let restarted = false;
    const answers: Answer[][] = Array.from({ length: CLIENTS }, () => []);
    const stateReads: Answer[] = [];
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const body = JSON.stringify({ type: 'say', payload: { text: 'hi' } });

    const answerOf = (res: Response): Answer => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      messageId: res.headers.get('x-message-id'),
      afterRestart: restarted,
    });

    const postJson = async (actor: string): Promise<Answer> => {
      const res = await fetch(`${base}/actors/echo/${actor}/messages`, { method: 'POST', headers, body });
      const json = (await res.json()) as ErrorJson & { reply?: { count?: number } };
      return { ...answerOf(res), code: json.error?.code, count: json.reply?.count };
    };

    const postSse = async (actor: string): Promise<Answer> => {
      const res = await fetch(`${base}/actors/echo/${actor}/messages`, { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body });
      if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const json = (await res.json()) as ErrorJson;
        return { ...answerOf(res), code: json.error?.code };
      }
      const answer = answerOf(res);
      const parser = createParser({
        onEvent: (e) => {
          const data = JSON.parse(e.data) as { count?: number; code?: string };
          if (e.event === 'reply') answer.count = data.count;
          if (e.event === 'error') answer.code = data.code ?? 'error';
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      answer.afterRestart = restarted;
      return answer;
    };

    const readState = async (actor: string): Promise<Answer> => {
      const res = await fetch(`${base}/actors/echo/${actor}`, { headers: { 'x-api-key': key } });
      const json = (await res.json()) as ErrorJson;
      return { ...answerOf(res), code: json.error?.code };
    };

    const succeeded = (a: Answer) => a.status === 200 && a.code === undefined && a.count !== undefined;
    const successesAfterRestart = (mine: Answer[]) => mine.filter((a) => a.afterRestart && succeeded(a)).length;

    // Half the clients wait for JSON answers, half follow the reply as SSE.
    const runClient = async (index: number) => {
      const actor = `restart-${index}`;
      const mine = answers[index];
      for (let n = 0; n < MAX_MESSAGES_PER_CLIENT && successesAfterRestart(mine) < SUCCESSES_AROUND_RESTART; n++) {
        mine.push(index % 2 === 0 ? await postJson(actor) : await postSse(actor));
        if (n % 5 === 4) stateReads.push(await readState(actor));
      }
    };
    const clients = Promise.all(answers.map((_, index) => runClient(index)));

    const untilEveryMailboxHoldsAMessage = async () => {
      const reader = new Redis(redis!.url, { maxRetriesPerRequest: 1 });
      try {
        await pollUntil(async () => (await Promise.all(answers.map((_, index) => reader.xlen(names.mailbox({ kind: 'echo', id: `restart-${index}` }))))).every((n) => n > 0), {
          timeoutMs: 30_000,
          what: "a message waiting in every client's mailbox",
        });
      } finally {
        reader.disconnect();
      }
    };
    const all = () => answers.flat();

    await pollUntil(() => answers.every((mine) => mine.filter(succeeded).length >= SUCCESSES_AROUND_RESTART), {
      timeoutMs: 60_000,
      what: 'every client answered before the restart',
    });
    // The probe's actor exists before the stop: while Redis is down, its owner is known and the post is
    // refused by the first Redis command.
    expect(succeeded(await postJson(PROBE_ACTOR)), 'the probe before the stop').to.equal(true);
    // With the worker paused, every client's next message stays in its mailbox: when Redis stops, each
    // client is waiting for the reply to a message it posted.
    worker().child.kill('SIGSTOP');
    await untilEveryMailboxHoldsAMessage();
    await redis!.stop();
    // Down until the probe has been refused a few times in a row: long enough for every waiting client's
    // request to have polled its reply stream while Redis was away.
    const probes: Answer[] = [];
    while (probes.length < REFUSALS_WHILE_DOWN) probes.push(await postJson(PROBE_ACTOR));
    await redis!.start();
    worker().child.kill('SIGCONT');
    restarted = true;
    await clients;

    const outage = (a: Answer) => a.status === 503 && a.code === 'broker_unavailable';
    const unexpected = [
      ...all().filter((a) => !succeeded(a) && !outage(a)),
      ...stateReads.filter((a) => a.status !== 200 && !outage(a)),
      ...probes.filter((a) => !outage(a)),
    ];
    expect(unexpected, `answers other than a reply or 503 broker_unavailable: ${JSON.stringify(unexpected.slice(0, 5))}\n${failureOutput()}`).to.deep.equal([]);
    const everything = [...all(), ...stateReads, ...probes];
    const refusals = everything.filter((a) => a.status === 503);
    for (const refusal of refusals) {
      expect(refusal.retryAfter, 'Retry-After of a 503').to.match(/^[1-9]\d*$/);
      // A posted message is followed through the restart: it is never given up with a 503.
      expect(refusal.messageId, 'a 503 for a message that was posted').to.equal(null);
    }

    for (const [index, mine] of answers.entries()) {
      expect(successesAfterRestart(mine), `client ${index} answered after the restart`).to.equal(SUCCESSES_AROUND_RESTART);
      // Between two replies, the count grows by one for the later message plus at most one for each
      // message refused in between (its post may have reached Redis before the refusal): more would
      // mean a message applied twice, less a reply for a message that was not applied.
      let count = 0;
      let refusedSince = 0;
      for (const answer of mine) {
        if (!succeeded(answer)) {
          refusedSince += 1;
          continue;
        }
        expect(answer.count, `client ${index}: count after ${refusedSince} refusals since count ${count}`).to.be.within(count + 1, count + 1 + refusedSince);
        count = answer.count!;
        refusedSince = 0;
      }
      const res = await fetch(`${base}/actors/echo/restart-${index}`, { headers: { 'x-api-key': key } });
      expect(res.status).to.equal(200);
      const { state } = (await res.json()) as { state: { count: number } };
      expect(state.count, `client ${index}: the stored count is the last reply's`).to.equal(count);
    }
  });

  it('MongoDB gone: a state read answers 503 store_unavailable with Retry-After', async function () {
    await mongo!.kill();
    const res = await fetch(`${base}/actors/echo/restart-0`, { headers: { 'x-api-key': key } });
    const json = (await res.json()) as ErrorJson;
    expect({ status: res.status, code: json.error?.code }, `${JSON.stringify(json)}\n${failureOutput()}`).to.deep.equal({ status: 503, code: 'store_unavailable' });
    expect(res.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
  });
});
