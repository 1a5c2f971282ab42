/**
 * Fencing: two drains of one actor running at once (what BullMQ can do after a stall) never apply a
 * message twice; the older one is discarded at its first commit.
 */
import { expect } from 'chai';
import { actorRecords, ActorStore, outboxOf } from '../../models/actor-record.js';
import { envelope } from '../../queues/envelope.js';
import { drainActor } from '../../actors/runtime/drain.js';
import { ResidentActors } from '../../actors/runtime/residents.js';
import { counterKind, type CounterState } from '../support/test-kinds.js';
import type { ActorKind } from '../../actors/runtime/contract.js';
import { pollUntil } from '../support/async.js';
import { drainFixture, type DrainFixture } from '../support/drain-fixture.js';

describe('fencing of concurrent drains', function () {
  let fixture: DrainFixture;
  const ref = { kind: 'counter', id: `fence-${Date.now()}` };
  const deps = () => fixture.deps();

  before(async function () {
    fixture = await drainFixture('fencing');
  });

  after(async function () {
    await fixture.close();
  });

  it('a zombie drain that started first loses at its commit; each message is applied once', async function () {
    for (let seq = 0; seq < 3; seq++) {
      await fixture.redis.xadd(fixture.names.mailbox(ref), '*', 'env', JSON.stringify(envelope({ actor: ref, ownerId: 'u1', type: 'add', payload: { n: 1, seq, sleepMs: seq === 0 ? 300 : 0 } })));
    }
    // The zombie starts first and is slow on its first turn; the newer drain (higher epoch) overtakes it.
    const kind = counterKind as ActorKind<unknown>;
    const zombie = drainActor(kind, ref, deps());
    await pollUntil(async () => ((await actorRecords(fixture.conn).findOne({ _id: `${ref.kind}:${ref.id}` }).lean())?.epoch ?? 0) >= 1, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'the first drain to take its epoch',
    });
    const current = drainActor(kind, ref, deps());
    const [zombieResult, currentResult] = await Promise.all([zombie, current]);
    expect(zombieResult).to.equal('fenced');
    expect(currentResult).to.equal('drained');
    const record = await actorRecords(fixture.conn).findOne({ _id: `${ref.kind}:${ref.id}` }).lean();
    const state = record!.state as CounterState;
    expect(state.count).to.equal(3);
    expect(state.seen).to.deep.equal([0, 1, 2]);
  });

  it('a turn committed between a drain’s first read and its fence is not applied again: the drain reads afresh', async function () {
    const actor = { kind: 'counter', id: `read-then-fence-${Date.now()}` };
    const _id = `${actor.kind}:${actor.id}`;
    for (let seq = 0; seq < 2; seq++) {
      await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq, sleepMs: seq === 0 ? 300 : 0 } }));
    }
    const kind = counterKind as ActorKind<unknown>;
    const record = () => actorRecords(fixture.conn).findOne({ _id }).lean();
    // The zombie fences first and is slow on its first turn.
    const zombie = drainActor(kind, actor, deps());
    await pollUntil(async () => ((await record())?.epoch ?? 0) >= 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the zombie to take its epoch' });
    // The newer drain reads both messages, unapplied, and fences only once the zombie has committed.
    const store = deps().store;
    const gated = Object.assign(Object.create(store) as typeof store, {
      fence: async (...args: Parameters<typeof store.fence>) => {
        // At least one: on a busy machine the zombie may have committed its second turn too by the time this looks.
        await pollUntil(async () => (((await record())?.state as CounterState | undefined)?.count ?? 0) >= 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the zombie to commit its first turn' });
        return store.fence(...args);
      },
    });
    const current = drainActor(kind, actor, { ...deps(), store: gated });
    const [, currentResult] = await Promise.all([zombie, current]);
    expect(currentResult).to.equal('drained');
    const state = (await record())!.state as CounterState;
    expect(state.seen, 'each message applied once').to.deep.equal([0, 1]);
    expect(state.count).to.equal(2);
    await fixture.mailboxes.drainQueue('counter', fixture.names.drainQueueOf(actor)).obliterate({ force: true });
  });

  it('commits issued together go as one bulk write, each still conditional on its own fence', async function () {
    const store = new ActorStore(actorRecords(fixture.conn));
    const ids = ['a', 'b', 'c'].map((x) => `group-${x}-${Date.now()}`);
    const fences = await Promise.all(ids.map((id) => store.fence(`counter:${id}`, 'counter', id)));
    // Same tick: b's epoch is stale, and c is committed twice from the same point (one must lose).
    const results = await Promise.all([
      store.commit(`counter:${ids[0]}`, fences[0].epoch, '0-0', { appliedSeq: '1-0', state: { count: 1 } }),
      store.commit(`counter:${ids[1]}`, fences[1].epoch - 1, '0-0', { appliedSeq: '1-0', state: { count: 1 } }),
      store.commit(`counter:${ids[2]}`, fences[2].epoch, '0-0', { appliedSeq: '1-0', state: { count: 1 } }),
      store.commit(`counter:${ids[2]}`, fences[2].epoch, '0-0', { appliedSeq: '2-0', state: { count: 2 } }),
    ]);
    expect(results.slice(0, 2)).to.deep.equal([true, false]);
    expect(results.slice(2).filter(Boolean), 'exactly one of the two commits from the same point').to.have.length(1);
    const records = await actorRecords(fixture.conn).find({ _id: { $in: ids.map((id) => `counter:${id}`) } }).lean();
    const byId = new Map(records.map((r) => [r._id, r]));
    expect(byId.get(`counter:${ids[0]}`)!.appliedSeq).to.equal('1-0');
    expect(byId.get(`counter:${ids[1]}`)!.appliedSeq, 'the stale commit changed nothing').to.equal('0-0');
    expect(byId.get(`counter:${ids[2]}`)!.appliedSeq).to.equal(results[2] ? '1-0' : '2-0');
  });

  it('a commit MongoDB refuses (a state over 16 MB) fails alone; the commits beside it in the bulk write still apply', async function () {
    const store = new ActorStore(actorRecords(fixture.conn));
    const ids = ['ok', 'huge'].map((x) => `group-${x}-${Date.now()}`);
    const fences = await Promise.all(ids.map((id) => store.fence(`counter:${id}`, 'counter', id)));
    const [ok, huge] = await Promise.allSettled([
      store.commit(`counter:${ids[0]}`, fences[0].epoch, '0-0', { appliedSeq: '1-0', state: { count: 1 } }),
      store.commit(`counter:${ids[1]}`, fences[1].epoch, '0-0', { appliedSeq: '1-0', state: { blob: 'x'.repeat(17 * 1024 * 1024) } }),
    ]);
    expect(ok).to.deep.equal({ status: 'fulfilled', value: true });
    expect(huge.status).to.equal('rejected');
    const records = await actorRecords(fixture.conn).find({ _id: { $in: ids.map((id) => `counter:${id}`) } }, { appliedSeq: 1 }).lean();
    expect(Object.fromEntries(records.map((r) => [r._id, r.appliedSeq]))).to.deep.equal({ [`counter:${ids[0]}`]: '1-0', [`counter:${ids[1]}`]: '0-0' });
  });

  it('a message delivered twice (same message id) is applied once; the duplicate gets the first reply', async function () {
    const dup = { kind: 'counter', id: `dup-${Date.now()}` };
    const messageId = fixture.names.messageId(dup);
    const env = envelope({ actor: dup, messageId, ownerId: 'u1', type: 'add', payload: { n: 5 }, replyStream: fixture.names.replies(messageId) });
    await fixture.redis.xadd(fixture.names.mailbox(dup), '*', 'env', JSON.stringify(env));
    await fixture.redis.xadd(fixture.names.mailbox(dup), '*', 'env', JSON.stringify(env));
    const result = await drainActor(counterKind as ActorKind<unknown>, dup, deps());
    expect(result).to.equal('drained');
    const record = await actorRecords(fixture.conn).findOne({ _id: `${dup.kind}:${dup.id}` }).lean();
    expect((record!.state as CounterState).count).to.equal(5);
    const replies = (await fixture.redis.xrange(fixture.names.replies(messageId), '-', '+')).map(([, f]) => [f[1], JSON.parse(f[3])]);
    expect(replies.filter(([e]) => e === 'reply')).to.deep.equal([
      ['reply', { count: 5 }],
      ['reply', { count: 5 }],
    ]);
    await Promise.all([fixture.redis.del(fixture.names.replies(messageId)), fixture.redis.del(fixture.names.mailbox(dup))]);
  });

  it('stores a reply once per commit; a drain after a crash that cut the effects short remembers the message applied from it', async function () {
    const actor = { kind: 'counter', id: `cut-short-${Date.now()}` };
    const _id = `${actor.kind}:${actor.id}`;
    const messageId = fixture.names.messageId(actor);
    const env = envelope({ actor, messageId, ownerId: 'u1', type: 'add', payload: { n: 3 }, replyStream: fixture.names.replies(messageId) });
    await fixture.mailboxes.post(env);
    const kind = counterKind as ActorKind<unknown>;
    expect(await drainActor(kind, actor, deps())).to.equal('drained');
    const record = await actorRecords(fixture.conn).findOne({ _id }).lean();
    const published = outboxOf(record!).find((i) => i.kind === 'publish');
    expect(published, 'the reply is in the outbox').to.not.equal(undefined);
    expect(outboxOf(record!).find((i) => i.kind === 'applied'), 'the applied marker does not store the reply again').to.deep.equal({ kind: 'applied', messageId });
    const marker = await fixture.redis.get(fixture.names.applied(actor, messageId));
    // A crash between the commit and its effects: the applied marker, the outbox marker and the mailbox delete never happened.
    await fixture.redis.del(fixture.names.applied(actor, messageId), fixture.names.outboxDone(actor), fixture.names.replies(messageId));
    await fixture.redis.xadd(fixture.names.mailbox(actor), '*', 'id', messageId, 'env', JSON.stringify(env));
    expect(await drainActor(kind, actor, deps())).to.equal('drained');
    expect(((await actorRecords(fixture.conn).findOne({ _id }).lean())!.state as CounterState).count, 'applied once').to.equal(3);
    expect(await fixture.redis.get(fixture.names.applied(actor, messageId)), 'the marker made from the stored reply').to.equal(marker);
    const replies = (await fixture.redis.xrange(fixture.names.replies(messageId), '-', '+')).map(([, f]) => f[1]);
    expect(replies.filter((e) => e === 'reply'), 'the outbox published again, and the copy answered with the first reply').to.have.length(2);
    await fixture.redis.del(fixture.names.replies(messageId), fixture.names.mailbox(actor));
  });

  it('appends a turn’s feed events in the finishing script, which also marks the outbox done; after a cut-short finish the fence appends them', async function () {
    const actor = { kind: 'counter', id: `feed-${Date.now()}` };
    const kind = counterKind as ActorKind<unknown>;
    const performed: string[] = [];
    const finished: Array<Array<{ e: string }>> = [];
    const base = deps();
    const effects = new Proxy(base.effects, {
      get(target, name, receiver) {
        if (name === 'perform') return (items: Array<{ kind: string }>, ref?: typeof actor) => (performed.push(...items.map((i) => i.kind)), target.perform(items as never, ref));
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const mailboxes = new Proxy(fixture.mailboxes, {
      get(target, name, receiver) {
        if (name === 'finish') return (f: Parameters<typeof target.finish>[0]) => (finished.push(f.feed ?? []), target.finish(f));
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'announce', payload: { text: 'hello' } }));
    expect(await drainActor(kind, actor, { ...base, effects, mailboxes })).to.equal('drained');
    expect(finished.map((feed) => feed.map((e) => e.e))).to.deep.equal([['announced', 'noted']]);
    expect(performed, 'nothing left for separate writes').to.deep.equal([]);
    const feed = () => fixture.redis.xrange(fixture.names.feed(actor), '-', '+');
    expect((await feed()).map(([, f]) => f[1])).to.deep.equal(['announced', 'noted']);
    const record = await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean();
    expect(await fixture.redis.get(fixture.names.outboxDone(actor))).to.equal(record!.appliedSeq);
    // A crash before the finishing script: the next drain's fence performs the stored outbox, feed included.
    expect(record!.outbox, 'stored as one JSON string').to.be.a('string');
    await fixture.redis.del(fixture.names.feed(actor), fixture.names.outboxDone(actor));
    await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'announce', payload: { text: 'again' } }));
    expect(await drainActor(kind, actor, deps())).to.equal('drained');
    expect((await feed()).map(([, f]) => f[1])).to.deep.equal(['announced', 'noted', 'announced', 'noted']);
    // So is an outbox a record committed before holds as documents.
    const committed = (await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean())!;
    await actorRecords(fixture.conn).updateOne({ _id: committed._id }, { $set: { outbox: outboxOf(committed) } });
    await fixture.redis.del(fixture.names.feed(actor), fixture.names.outboxDone(actor));
    await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } }));
    expect(await drainActor(kind, actor, deps())).to.equal('drained');
    expect((await feed()).map(([, f]) => f[3])).to.deep.equal(['{"to":null,"data":{"text":"again"}}', '{"to":"u1","data":{"text":"again"}}']);
    await fixture.redis.del(fixture.names.feed(actor));
  });

  it('a copy posted as the gateway posts (message id beside the envelope) in the same batch is answered, not applied', async function () {
    const dup = { kind: 'counter', id: `dup-posted-${Date.now()}` };
    const messageId = fixture.names.messageId(dup);
    const stream = fixture.names.replies(messageId);
    const env = envelope({ actor: dup, messageId, ownerId: 'u1', type: 'add', payload: { n: 2 }, replyStream: stream });
    await fixture.redis.xadd(fixture.names.mailbox(dup), '*', 'id', env.messageId, 'env', JSON.stringify(env));
    await fixture.redis.xadd(fixture.names.mailbox(dup), '*', 'id', env.messageId, 'env', JSON.stringify(env));
    expect(await drainActor(counterKind as ActorKind<unknown>, dup, deps())).to.equal('drained');
    const record = await actorRecords(fixture.conn).findOne({ _id: `${dup.kind}:${dup.id}` }).lean();
    expect((record!.state as CounterState).count).to.equal(2);
    // A third copy, arriving after the first was applied, is caught by the applied marker the read returns.
    await fixture.redis.xadd(fixture.names.mailbox(dup), '*', 'id', env.messageId, 'env', JSON.stringify(env));
    expect(await drainActor(counterKind as ActorKind<unknown>, dup, deps())).to.equal('drained');
    const after = await actorRecords(fixture.conn).findOne({ _id: `${dup.kind}:${dup.id}` }).lean();
    expect((after!.state as CounterState).count).to.equal(2);
    const replies = (await fixture.redis.xrange(stream, '-', '+')).map(([, f]) => [f[1], JSON.parse(f[3])]).filter(([e]) => e === 'reply');
    expect(replies).to.deep.equal([
      ['reply', { count: 2 }],
      ['reply', { count: 2 }],
      ['reply', { count: 2 }],
    ]);
    expect(await fixture.redis.exists(fixture.names.mailbox(dup))).to.equal(0);
    await fixture.redis.del(stream);
  });

  it('a resident copy made stale by a drain elsewhere commits nothing; the fresh drain applies the message once', async function () {
    const actor = { kind: 'counter', id: `resident-${Date.now()}` };
    const kind = counterKind as ActorKind<unknown>;
    const here = new ResidentActors();
    const add = (seq: number) => fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq } }));
    // This process drains the actor and keeps it resident.
    await add(0);
    expect(await drainActor(kind, actor, { ...deps(), residents: here })).to.equal('drained');
    expect(here.size).to.equal(1);
    // Another worker (no resident copy) drains the next message: it fences, so the copy here is stale.
    await add(1);
    expect(await drainActor(kind, actor, deps())).to.equal('drained');
    await add(2);
    expect(await drainActor(kind, actor, { ...deps(), residents: here })).to.equal('stale');
    expect(here.size, 'the stale copy is forgotten').to.equal(0);
    expect(await drainActor(kind, actor, { ...deps(), residents: here })).to.equal('drained');
    const record = await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean();
    expect((record!.state as CounterState).seen).to.deep.equal([0, 1, 2]);
    here.close();
    await fixture.mailboxes.drainQueue('counter', fixture.names.partitionOf(actor)).obliterate({ force: true });
  });

  it('a second drain of a resident actor in the same process fences, and fences out the first', async function () {
    const actor = { kind: 'counter', id: `resident-twice-${Date.now()}` };
    const kind = counterKind as ActorKind<unknown>;
    const here = new ResidentActors();
    await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq: 0 } }));
    expect(await drainActor(kind, actor, { ...deps(), residents: here })).to.equal('drained');
    for (let seq = 1; seq < 4; seq++) {
      await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq, sleepMs: seq === 1 ? 300 : 0 } }));
    }
    const first = drainActor(kind, actor, { ...deps(), residents: here });
    const epochBefore = (await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean())!.epoch;
    const second = drainActor(kind, actor, { ...deps(), residents: here });
    const results = await Promise.all([first, second]);
    expect(results).to.deep.equal(['stale', 'drained']);
    const record = await actorRecords(fixture.conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean();
    expect(record!.epoch).to.equal(epochBefore + 1);
    expect((record!.state as CounterState).seen).to.deep.equal([0, 1, 2, 3]);
    here.close();
    await fixture.mailboxes.drainQueue('counter', fixture.names.partitionOf(actor)).obliterate({ force: true });
  });

  it('logs one debug line per turn: kind, actor, message, duration and outcome', async function () {
    const actor = { kind: 'counter', id: `logged-${Date.now()}` };
    const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const quiet = () => undefined;
    const logger = { info: quiet, warn: quiet, error: quiet, debug: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }) };
    const sent = envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    await fixture.mailboxes.post(sent);
    await fixture.mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 'not a number' } }));
    expect(await drainActor(counterKind as ActorKind<unknown>, actor, { ...deps(), logger })).to.equal('drained');
    const turns = lines.filter((line) => line.msg === 'turn');
    expect(turns.map((t) => t.obj.outcome)).to.deep.equal(['reply', 'bad_request']);
    expect(turns[0]!.obj).to.include({ kind: 'counter', actor: actor.id, messageId: sent.messageId });
    expect(turns[0]!.obj.ms).to.be.a('number');
  });
});
