/**
 * Early drain jobs (real Redis, embedded Mongo): a post that expects its actor's drain to have left adds
 * the drain job right behind the post, on the same connection, without waiting for the post's answer.
 * Redis runs the post first, so the job's drain finds the message; when a drain was there after all the
 * message is still applied once; and a refused post's job finds nothing and creates nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { actorRecords } from '../../models/actor-record.js';
import { envelope } from '../../queues/envelope.js';
import { OwnerNotConfirmed } from '../../queues/mailbox.js';
import { drainActor, type DrainDeps } from '../../actors/runtime/drain.js';
import { counterKind, type CounterState } from '../support/test-kinds.js';
import type { ActorKind } from '../../actors/runtime/contract.js';
import { pollUntil } from '../support/async.js';
import { lingeringDrainFixture, REDIS_URL, type LingeringDrainFixture } from '../support/drain-fixture.js';

const kind = counterKind as ActorKind<unknown>;
type Actor = { kind: string; id: string };

describe('early drain jobs', function () {
  this.timeout(30_000);
  let fixture: LingeringDrainFixture;

  const deps = (lingerMs: number, stopping?: AbortSignal): DrainDeps => fixture.lingering(lingerMs, stopping);
  const postEarly = (actor: Actor, seq: number, sender?: string) =>
    fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq } }), undefined, undefined, sender, { drainJobEarly: true });
  const recordOf = (actor: Actor) => actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean();
  /** The actor's waiting drain job (drain jobs are deduplicated by actor), or null. */
  const drainJobOf = async (actor: Actor) => {
    const queue = fixture.mailboxes.drainQueue(actor.kind, fixture.names.drainQueueOf(actor));
    const id = await queue.getDeduplicationJobId(`${actor.kind}:${actor.id}`);
    return id === null ? null : ((await queue.getJobState(id)) as string);
  };

  before(async function () {
    fixture = await lingeringDrainFixture('early');
  });

  after(async function () {
    await fixture.close();
  });

  it('reaches Redis after its post, every time (as MONITOR sees the commands run)', async function () {
    const actors = Array.from({ length: 20 }, (_, i): Actor => ({ kind: 'counter', id: `early-order-${i}-${randomUUID()}` }));
    const client = new Redis(REDIS_URL);
    const monitor = await client.monitor();
    const ran: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => ran.push(args));
    try {
      // Each post on its own, as a gateway's cold posts come: the job is written before the post's answer.
      for (const [i, actor] of actors.entries()) expect((await postEarly(actor, i)).drainJobAdded).to.equal(true);
      // MONITOR's feed trails the commands; an ECHO sent after them all marks its end.
      const marker = `early-order-done-${randomUUID()}`;
      await fixture.redis.echo(marker);
      await pollUntil(() => ran.some((args) => args.includes(marker)), { timeoutMs: 10_000, intervalMs: 5, what: 'the monitor feed' });
    } finally {
      monitor.disconnect();
      client.disconnect();
    }
    for (const actor of actors) {
      const mailbox = fixture.names.mailbox(actor);
      const data = JSON.stringify(actor);
      const post = ran.findIndex((args) => args.includes(mailbox));
      const job = ran.findIndex((args) => !args.includes(mailbox) && args.some((a) => a.includes(data)));
      expect(post, `the post to ${actor.id}`).to.be.greaterThan(-1);
      expect(job, `the drain job of ${actor.id}`).to.be.greaterThan(post);
    }
  });

  it('when the drain was there after all, the message is applied once and the job finds nothing to do', async function () {
    const actor: Actor = { kind: 'counter', id: `early-lingering-${randomUUID()}` };
    await postEarly(actor, 0);
    const stopping = new AbortController();
    const lingering = drainActor(kind, actor, deps(10_000, stopping.signal));
    await pollUntil(async () => ((await recordOf(actor))?.state as CounterState | undefined)?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the first message applied' });
    // A post that expected no drain: its job is added although the lingering drain is woken for it.
    expect((await postEarly(actor, 1)).drainJobAdded).to.equal(true);
    await pollUntil(async () => ((await recordOf(actor))?.state as CounterState | undefined)?.count === 2, { timeoutMs: 10_000, intervalMs: 5, what: 'the second message applied by the lingering drain' });
    stopping.abort();
    expect(await lingering).to.equal('drained');
    expect(await drainJobOf(actor), 'the early job (deduplicated with the first post\'s)').to.equal('waiting');
    // The job's drain: nothing left to read.
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect(((await recordOf(actor))?.state as CounterState).seen).to.deep.equal([0, 1]);
    expect(await fixture.redis.exists(fixture.names.drainer(actor), fixture.names.mailbox(actor))).to.equal(0);
  });

  it('a refused post posts nothing, and its job drains nothing and creates no actor', async function () {
    const actor: Actor = { kind: 'counter', id: `early-refused-${randomUUID()}` };
    // Someone else owns the actor, as far as the post's owner check can tell.
    await fixture.redis.set(fixture.names.owner(actor), 'u2', 'EX', 60);
    const refusal = await postEarly(actor, 0, 'u1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusal).to.be.instanceOf(OwnerNotConfirmed);
    expect(await drainJobOf(actor), 'the early job, added before the refusal was known').to.equal('waiting');
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect(await recordOf(actor), 'no actor record').to.equal(null);
    const leftovers = await fixture.redis.exists(fixture.names.mailbox(actor), fixture.names.drainer(actor));
    expect(leftovers, 'no mailbox, no drainer key').to.equal(0);
    expect(await fixture.redis.zscore(fixture.names.awaitingDrainOf(actor), actor.id), 'not awaiting a drain').to.equal(null);
    await fixture.redis.del(fixture.names.owner(actor));
  });
});
