/**
 * Lingering drains (real Redis, embedded Mongo): a drain that has emptied its actor's mailbox waits a
 * moment; a message posted meanwhile wakes it and needs no new drain job. Leaving is atomic with the
 * last read, so afterwards posts add drain jobs again and nothing is left behind in Redis. A wake-up
 * carries the posted entry when it is all the mailbox holds, so the woken drain need not read it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { actorRecords } from '../../models/actor-record.js';
import { envelope } from '../../queues/envelope.js';
import { entryAfter, type Woken } from '../../queues/drain-wakeups.js';
import type { Mailboxes } from '../../queues/mailbox.js';
import { drainActor, type DrainDeps } from '../../actors/runtime/drain.js';
import { counterKind, type CounterState } from '../support/test-kinds.js';
import type { ActorKind } from '../../actors/runtime/contract.js';
import { pollUntil } from '../support/async.js';
import { lingeringDrainFixture, type LingeringDrainFixture } from '../support/drain-fixture.js';

const kind = counterKind as ActorKind<unknown>;

describe('lingering drains', function () {
  this.timeout(30_000);
  let fixture: LingeringDrainFixture;

  const deps = (lingerMs: number, stopping?: AbortSignal): DrainDeps => fixture.lingering(lingerMs, stopping);
  const add = (actor: { kind: string; id: string }, seq: number) => fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq } }));
  const stateOf = async (actor: { kind: string; id: string }) => (await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean())?.state as CounterState | undefined;

  before(async function () {
    fixture = await lingeringDrainFixture('linger');
  });

  after(async function () {
    await fixture.close();
  });

  it('a message posted while the drain lingers wakes it and adds no drain job; after it leaves, posts add jobs again', async function () {
    const actor = { kind: 'counter', id: `linger-${randomUUID()}` };
    expect((await add(actor, 0)).drainJobAdded, 'no drain yet: the first post adds a job').to.equal(true);
    const stopping = new AbortController();
    const draining = drainActor(kind, actor, deps(10_000, stopping.signal));
    await pollUntil(async () => (await stateOf(actor))?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the first message applied' });
    const second = await add(actor, 1);
    expect(second.drainJobAdded, 'the lingering drain is woken instead').to.equal(false);
    await pollUntil(async () => (await stateOf(actor))?.count === 2, { timeoutMs: 10_000, intervalMs: 5, what: 'the second message applied by the same drain' });
    // Ends the linger now rather than after its 10 s.
    stopping.abort();
    expect(await draining).to.equal('drained');
    expect(await fixture.redis.exists(fixture.names.drainer(actor), fixture.names.mailbox(actor)), 'no drainer key, no empty mailbox').to.equal(0);
    expect((await add(actor, 2)).drainJobAdded, 'with the drain gone, a post adds a job').to.equal(true);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect((await stateOf(actor))?.seen).to.deep.equal([0, 1, 2]);
  });

  it('a woken drain runs the entry its wake-up carried without reading the mailbox, in order with later posts', async function () {
    const actor = { kind: 'counter', id: `linger-carried-${randomUUID()}` };
    await add(actor, 0);
    let reads = 0;
    // The drain's own reads after its first: counted, so a carried entry is seen to need none.
    const mailboxes = new Proxy(fixture.mailboxes, {
      get(target, name, receiver) {
        if (name === 'next') return (...args: Parameters<Mailboxes['next']>) => ((reads += 1), target.next(...args));
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const stopping = new AbortController();
    const draining = drainActor(kind, actor, { ...deps(10_000, stopping.signal), mailboxes });
    await pollUntil(async () => (await stateOf(actor))?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the first message applied' });
    expect((await add(actor, 1)).drainJobAdded).to.equal(false);
    await pollUntil(async () => (await stateOf(actor))?.count === 2, { timeoutMs: 10_000, intervalMs: 5, what: 'the carried message applied' });
    expect(reads, 'the carried entry needed no read of the mailbox').to.equal(0);
    // Posted together: the first wake-up carries its entry, the second cannot (two entries) and the drain reads them in order.
    await Promise.all([add(actor, 2), add(actor, 3), add(actor, 4)]);
    await pollUntil(async () => (await stateOf(actor))?.count === 5, { timeoutMs: 10_000, intervalMs: 5, what: 'the later messages applied' });
    stopping.abort();
    expect(await draining).to.equal('drained');
    expect((await stateOf(actor))?.seen).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('a wake-up carries the posted entry only when it is all the mailbox holds and was never applied', async function () {
    const actor = { kind: 'counter', id: `linger-wake-${randomUUID()}` };
    // A drain lingering for this actor, as far as posts can tell.
    await fixture.redis.set(fixture.names.drainer(actor), fixture.wakeups.channel, 'PX', 10_000);
    const wakeFor = async (post: () => Promise<{ entryId: string }>): Promise<{ woken: Woken | undefined; entryId: string }> => {
      const waiting = fixture.wakeups.wait(`${actor.kind}:${actor.id}`, 10_000, performance.now());
      const { entryId } = await post();
      return { woken: await waiting, entryId };
    };
    const first = await wakeFor(() => add(actor, 0));
    expect(first.woken?.entry?.entryId).to.equal(first.entryId);
    expect(JSON.parse(first.woken!.entry!.envelope!)).to.include({ type: 'add' });
    expect(first.woken!.entry).to.include({ applied: null, appliedChecked: true });
    const second = await wakeFor(() => add(actor, 1));
    expect(second.woken, 'woken').to.not.equal(undefined);
    expect(second.woken!.entry, 'two entries: the drain must read them in order').to.equal(undefined);
    await fixture.redis.del(fixture.names.mailbox(actor));
    const duplicate = envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq: 2 } });
    await fixture.redis.set(fixture.names.applied(actor, duplicate.messageId), '[]', 'EX', 60);
    const applied = await wakeFor(() => fixture.mailboxes.post(duplicate));
    expect(applied.woken!.entry, 'an applied message is answered from its marker, after a read').to.equal(undefined);
    await fixture.redis.del(fixture.names.drainer(actor), fixture.names.mailbox(actor), fixture.names.applied(actor, duplicate.messageId));
  });

  it('a carried entry the drain has committed already is not run again', function () {
    const woken: Woken = { entry: { entryId: '1700000000000-1', envelope: '{}', applied: null, appliedChecked: true } };
    expect(entryAfter(woken, '0-0')).to.equal(woken.entry);
    expect(entryAfter(woken, '1700000000000-0')).to.equal(woken.entry);
    expect(entryAfter(woken, '1700000000000-1'), 'the entry committed').to.equal(undefined);
    expect(entryAfter(woken, '1700000000001-0'), 'a later one committed').to.equal(undefined);
    expect(entryAfter({ entry: undefined }, '0-0')).to.equal(undefined);
  });

  it('stops lingering at once when the worker is stopping', async function () {
    const actor = { kind: 'counter', id: `linger-stop-${randomUUID()}` };
    await add(actor, 0);
    const stopping = new AbortController();
    const draining = drainActor(kind, actor, deps(60_000, stopping.signal));
    await pollUntil(async () => (await stateOf(actor))?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the message applied' });
    stopping.abort();
    expect(await draining).to.equal('drained');
    expect(await fixture.redis.exists(fixture.names.drainer(actor))).to.equal(0);
  });

  it('a drain that stops early gives up its drainer key, so later posts add jobs', async function () {
    const actor = { kind: 'counter', id: `linger-fenced-${randomUUID()}` };
    await add(actor, 0);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    await add(actor, 1);
    await add(actor, 2);
    // A drain interrupted before its first turn (shutdown): the messages stay, the key goes.
    const stopping = new AbortController();
    stopping.abort();
    expect(await drainActor(kind, actor, deps(1_000, stopping.signal))).to.equal('interrupted');
    expect(await fixture.redis.exists(fixture.names.drainer(actor))).to.equal(0);
    expect(await fixture.mailboxes.pending(actor)).to.equal(2);
    expect((await add(actor, 3)).drainJobAdded).to.equal(true);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect((await stateOf(actor))?.seen).to.deep.equal([0, 1, 2, 3]);
  });
});
