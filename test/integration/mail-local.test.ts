/**
 * Mail with the default transport (MAIL_TRANSPORT=local) through the real runtime (in-process workers,
 * real Redis, embedded MongoDB): mail between troupe inboxes is delivered with its attachments; mail to
 * an outside address is kept as `failed` with the reason; a message delivered twice is stored once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { inboxKind, mailKind } from '../../actors/mail/kind.js';
import { ActorClient } from '../../actors/runtime/client.js';
import type { AnyKind } from '../../actors/runtime/contract.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { mailModels } from '../../models/mail.js';
import { RedisNames } from '../../queues/keys.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const kinds = [inboxKind, mailKind] as AnyKind[];
type Structured = Record<string, unknown>;

describe('mail with local delivery (in-process workers, real Redis, embedded MongoDB)', function () {
  this.timeout(30_000);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  const prefix = `test-mail-local-${process.pid}-${Date.now().toString(36)}`;
  const names = new RedisNames(prefix);
  const alice = `alice-${randomUUID()}`;
  const bob = `bob-${randomUUID()}`;

  const send = async (ownerId: string, id: string, type: string, payload: Structured): Promise<ReplyEvent[]> =>
    client.reply((await client.send({ actor: { kind: 'inbox', id }, ownerId, type, payload })).replyStream, { idleTimeoutMs: 20_000 });
  const reply = (events: ReplyEvent[]) => {
    const error = events.find((e) => e.event === 'error');
    expect(error, JSON.stringify(error)).to.equal(undefined);
    return events.find((e) => e.event === 'reply')!.data as Structured;
  };
  const inboxId = () => `ibx_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'mail_local' }).asPromise();
    await Promise.all(Object.values(mailModels(conn)).map((model) => model.init()));
    client = new ActorClient(REDIS_URL, conn, kinds, names);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds, logger: silent, names });
  });

  after(async function () {
    await workers?.close();
    await client?.close();
    await conn?.close();
    await mongo?.stop();
    await deleteRedisPrefix(prefix);
  });

  it('delivers between inboxes with attachments, keeps mail to outside addresses as failed with the reason, and stores a redelivery once', async function () {
    const from = inboxId();
    const to = inboxId();
    reply(await send(alice, from, 'create', { username: `alice${process.pid}`, name: 'Alice' }));
    const bobs = reply(await send(bob, to, 'create', { username: `bob${process.pid}`, name: 'Bob' }));

    const pdf = Buffer.from('%PDF-1.4 tiny').toString('base64');
    const sent = reply(await send(alice, from, 'send', { to: [bobs.email_address as string, 'someone@outside.test'], subject: 'Report', body: 'See *attached*.', attachments: [{ filename: 'r.pdf', content_type: 'application/pdf', content_base64: pdf }] }));
    expect(sent.status).to.equal('delivered');
    const recipients = sent.recipients as Record<string, { status: string; reason?: string }>;
    expect(recipients[bobs.email_address as string]).to.deep.equal({ status: 'delivered' });
    expect(recipients['someone@outside.test']!.status).to.equal('failed');
    expect(recipients['someone@outside.test']!.reason).to.include('MAIL_TRANSPORT=local');
    expect(sent.status_reason).to.include('someone@outside.test');

    const { messages, attachments } = mailModels(conn);
    const copy = await pollUntil(() => messages.findOne({ inboxId: to, direction: 'inbound' }).lean().exec().then((m) => m ?? undefined), { timeoutMs: 20_000, what: "Bob's copy" });
    expect(copy.ownerId).to.equal(bob);
    expect(copy.html).to.include('<em>attached</em>');
    expect(await attachments.countDocuments({ messageId: copy._id, ownerId: bob, filename: 'r.pdf' })).to.equal(1);

    const onlyOutside = reply(await send(alice, from, 'send', { to: 'nobody@outside.test', subject: 'x', body: 'x' }));
    expect(onlyOutside.status).to.equal('failed');

    const again = reply(await send(bob, to, 'deliver', { from: copy.from, to: copy.to, subject: copy.subject, text: 'same', message_id: copy.message_id, via: 'smtp' }));
    expect(again.duplicate).to.equal(true);
    expect(await messages.countDocuments({ inboxId: to, direction: 'inbound' })).to.equal(1);
  });
});
