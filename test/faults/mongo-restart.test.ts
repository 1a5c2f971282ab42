/**
 * MongoDB restarts under load, with real processes: a `troupe worker` and a `troupe gateway` on the
 * shared Redis (a REDIS_PREFIX of their own) and a MongoDB the test takes away and brings back.
 *
 * By default that MongoDB is `troupe mongo --dbpath DIR`, killed with SIGKILL and started again on the
 * same port and dbpath. With MONGODB_URI pointing at a real MongoDB on loopback, the test cannot kill
 * the server (only one it started), so the outage is the connection: every process reaches MongoDB
 * through a relay that is closed and opened again (see test/support/restartable-mongo.ts). That runs the
 * same assertions on the retry and reconnect paths; the durability of acknowledged writes across a
 * server kill is then the server's own and is checked with the embedded server only.
 *
 * Each client sends to its own echo actor, one message at a time; the echo actor counts the messages
 * it has applied and says the count in its reply. So the replies say whether a message was lost (a
 * count skipped... or never reached) or applied twice (a count repeated or jumping).
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { pollUntil, withDeadline } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { startRestartableMongo, type RestartableMongo } from '../support/restartable-mongo.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLIENTS = 6;
/** Each client's bound on messages, whatever happens. */
const MAX_MESSAGES_PER_CLIENT = 200;
/** Replies each client must have had before the outage, and after it, before it stops. */
const REPLIES_AROUND_OUTAGE = 3;
/** What a worker logs when a turn first fails for a MongoDB outage (actors/runtime/store-outage.ts). */
const RETRYING = 'MongoDB out of reach: retrying turns';

interface Answer {
  status: number;
  code?: string;
  /** X-Message-Id: the message was posted. */
  messageId: string | null;
  /** The echo actor's count after this message. */
  count?: number;
  /** Whether the store had not been brought back yet when the request was sent. */
  sentBeforeResume: boolean;
  /** Whether the store had been brought back when the answer arrived. */
  afterResume: boolean;
}

interface Troupe {
  base: string;
  key: string;
  names: RedisNames;
  dbName: string;
  mongo: RestartableMongo;
  spawned: TroupeProcess[];
  worker(): TroupeProcess;
  /** Each process's logged errors and the end of its stderr (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A MongoDB to take away, a user, a worker and a gateway; `env` adds variables (e.g. the retry bound). */
async function startTroupe(name: string, env: Record<string, string> = {}): Promise<Troupe> {
  const mongo = await startRestartableMongo();
  const names = new RedisNames(`test-mongo-restart-${name}-${process.pid}`);
  const dbName = `mongo_restart_${name}_${process.pid}`;
  const spawned: TroupeProcess[] = [];
  const stop = async () => {
    await Promise.all(spawned.map((p) => p.kill()));
    await mongo.remove(dbName).catch(() => undefined);
    await deleteRedisPrefix(names.prefix, REDIS_URL);
  };
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const processEnv = troupeEnv({
      REDIS_URL,
      REDIS_PREFIX: names.prefix,
      MONGODB_URI: mongo.uri,
      MONGODB_DB: dbName,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      KIND_LIMITS: 'echo:rate=none,concurrent=none',
      ...env,
    });
    const key = await createUserKey(`restart-${name}`, processEnv);
    await startWorkerAndGateway(processEnv, base, spawned);
    const output = () =>
      spawned
        .map((p) => {
          const errors = p.stdout().split('\n').filter((line) => /"level":(40|50|60)/.test(line)).slice(-4).map((line) => line.slice(0, 1500));
          return [`--- troupe ${p.child.spawnargs.slice(2).join(' ')}`, ...errors, p.stderr().slice(-1500)].join('\n');
        })
        .join('\n');
    const worker = () => spawned.find((p) => p.child.spawnargs[2] === 'worker')!;
    return { base, key, names, dbName, mongo, spawned, worker, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface ErrorJson {
  error?: { code?: string; details?: { issues?: { queued?: boolean } } };
  reply?: { count?: number };
}

async function say(troupe: Troupe, actor: string, outage: { resumed: boolean }, idempotencyKey?: string): Promise<Answer> {
  const sentBeforeResume = !outage.resumed;
  const headers: Record<string, string> = { 'x-api-key': troupe.key, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${troupe.base}/actors/echo/${actor}/messages`, { method: 'POST', headers, body: JSON.stringify({ type: 'say', payload: { text: 'hi' } }) });
  const json = (await res.json()) as ErrorJson;
  return { status: res.status, code: json.error?.code, messageId: res.headers.get('x-message-id'), count: json.reply?.count, sentBeforeResume, afterResume: outage.resumed };
}

async function storedCount(troupe: Troupe, actor: string): Promise<number | undefined> {
  const res = await fetch(`${troupe.base}/actors/echo/${actor}`, { headers: { 'x-api-key': troupe.key } });
  if (res.status !== 200) return undefined;
  return ((await res.json()) as { state: { count: number } }).state.count;
}

const succeeded = (a: Answer) => a.status === 200 && a.code === undefined && a.count !== undefined;

describe('MongoDB restarts (real processes)', function () {
  this.timeout(300_000);
  let troupe: Troupe | undefined;

  afterEach(async function () {
    await troupe?.stop();
    troupe = undefined;
  });

  it('a short outage under load: every acknowledged commit survives, nothing is lost or applied twice, no client gets an error', async function () {
    troupe = await startTroupe('short');
    const t = troupe;
    const outage = { resumed: false };
    const answers: Answer[][] = Array.from({ length: CLIENTS }, () => []);
    const afterResume = (mine: Answer[]) => mine.filter((a) => a.afterResume && succeeded(a)).length;

    const runClient = async (index: number) => {
      const mine = answers[index];
      for (let n = 0; n < MAX_MESSAGES_PER_CLIENT && afterResume(mine) < REPLIES_AROUND_OUTAGE; n++) {
        mine.push(await say(t, `restart-${index}`, outage));
      }
    };
    const clients = Promise.all(answers.map((_, index) => runClient(index)));

    await pollUntil(() => answers.every((mine) => mine.filter(succeeded).length >= REPLIES_AROUND_OUTAGE), { timeoutMs: 60_000, what: 'replies before the outage' });
    // Probe actors with one message each before the outage, and one sent while MongoDB is down.
    const probes = ['probe-0', 'probe-1', 'probe-2'];
    for (const probe of probes) expect((await say(t, probe, outage)).count, probe).to.equal(1);
    await t.mongo.interrupt();
    const probed = Promise.all(probes.map((probe) => say(t, probe, outage)));
    // Down until every client and probe has a message waiting in its mailbox.
    const inFlight = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      await pollUntil(
        async () => {
          const ids = [...answers.map((_, index) => `restart-${index}`), ...probes];
          const lengths = await Promise.all(ids.map((id) => inFlight.xlen(t.names.mailbox({ kind: 'echo', id }))));
          return lengths.every((n) => n > 0);
        },
        { timeoutMs: 30_000, what: 'a message waiting in every mailbox while MongoDB is down' },
      );
    } finally {
      inFlight.disconnect();
    }
    // And until the worker has had a turn fail for the outage and is retrying it (rather than one that
    // merely waited in the driver's queue for a quick restart).
    await pollUntil(() => t.worker().stdout().includes(RETRYING), { timeoutMs: 60_000, what: 'the worker retrying a turn through the outage' });
    await t.mongo.resume();
    outage.resumed = true;
    await withDeadline(clients, 180_000, 'the clients to finish after the restart');
    const probeAnswers = await withDeadline(probed, 60_000, 'the probes sent during the outage');

    const failed = [...answers.flat(), ...probeAnswers].filter((a) => !succeeded(a));
    expect(failed, `answers other than a reply: ${JSON.stringify(failed.slice(0, 5))}\n${t.output()}`).to.deep.equal([]);
    for (const [index, mine] of answers.entries()) {
      // One message at a time, all answered: the counts are 1, 2, 3, ... with no gap (a lost message or
      // a reply that was not applied), no repeat (an acknowledged commit lost in the kill) and no jump
      // (a message applied twice).
      expect(mine.map((a) => a.count), `client ${index}`).to.deep.equal(mine.map((_, n) => n + 1));
      expect(mine.some((a) => a.sentBeforeResume && a.afterResume), `client ${index} waited through the outage`).to.equal(true);
      expect(await storedCount(t, `restart-${index}`), `client ${index}: the stored count`).to.equal(mine.length);
    }
    // Sent while MongoDB was down, answered after it came back, applied once.
    expect(probeAnswers.map((a) => a.count)).to.deep.equal(probes.map(() => 2));
    for (const probe of probes) expect(await storedCount(t, probe), probe).to.equal(2);
  });

  it('an outage longer than STORE_OUTAGE_RETRY_SECONDS: the client gets 503 store_unavailable, and the message is applied once when the store is back', async function () {
    troupe = await startTroupe('long', { STORE_OUTAGE_RETRY_SECONDS: '2' });
    const t = troupe;
    const outage = { resumed: false };
    const actors = ['late-0', 'late-1', 'late-2'];
    for (const actor of actors) {
      for (let n = 1; n <= 2; n++) expect((await say(t, actor, outage)).count, `${actor} before the outage`).to.equal(n);
    }

    await t.mongo.interrupt();
    const told = await withDeadline(
      Promise.all(actors.map((actor) => say(t, actor, outage, `late-${actor}`))),
      120_000,
      'the answers while MongoDB is down',
    );
    for (const answer of told) {
      expect({ status: answer.status, code: answer.code }, `${JSON.stringify(answer)}\n${t.output()}`).to.deep.equal({ status: 503, code: 'store_unavailable' });
      // Posted: the message is in its mailbox, not refused at the door.
      expect(answer.messageId).to.be.a('string');
    }
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      for (const actor of actors) expect(await redis.xlen(t.names.mailbox({ kind: 'echo', id: actor })), `${actor}: the message stays queued`).to.equal(1);
    } finally {
      redis.disconnect();
    }

    await t.mongo.resume();
    outage.resumed = true;
    for (const actor of actors) {
      await pollUntil(async () => (await storedCount(t, actor)) === 3, { timeoutMs: 60_000, what: `${actor}'s queued message applied after the restart` });
    }
    for (const actor of actors) {
      // The same Idempotency-Key now answers with the reply: the outage notice was withdrawn.
      const again = await say(t, actor, outage, `late-${actor}`);
      expect({ status: again.status, count: again.count }, `${actor}: retry with the same Idempotency-Key`).to.deep.equal({ status: 200, count: 3 });
      // Applied once: the next message is the fourth.
      expect((await say(t, actor, outage)).count, `${actor} after the restart`).to.equal(4);
    }
  });
});
