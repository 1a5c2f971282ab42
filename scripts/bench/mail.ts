/**
 * `npm run bench:mail`: mail's figures on a troupe as operators run it (troupe mongo, one worker, one
 * gateway receiving SMTP):
 *   - inbound messages/s over SMTP into threads (nodemailer → the gateway's SMTP listener → the inbox
 *     actor stores and threads each one), beside the same messages delivered over HTTP (the demo route);
 *   - search p50/p95 over N messages (default 100,000) through the mail service's text-index query;
 *   - wake-up: one agent waits with `wait_for_reply` over MCP while another process delivers the
 *     reply; the time from sending the reply to the wait returning, p50/p99, beside the delivery's own
 *     round trip.
 */
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import nodemailer from 'nodemailer';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mailKind } from '../../actors/mail/kind.js';
import { DEFAULT_MAIL_SETTINGS } from '../../actors/mail/settings.js';
import { offlineNarrator } from '../../actors/llm/offline-narrator.js';
import { UserDirectory } from '../../gateway/users.js';
import { mailModels, type MessageRecord } from '../../models/mail.js';
import type { Logger } from '../../logging/logger.js';
import { freePort, latencySummary, startBenchTroupe } from './troupe-processes.js';

export interface MailBenchOptions {
  redisUrl: string;
  logger: Logger;
  messages?: number;
  inbound?: number;
  wakeups?: number;
}

const SEARCH_SAMPLES = 200;
/**
 * A vocabulary like real mail's: a few thousand words, a few very common and most rare (Zipf), so a
 * query word matches a realistic share of messages rather than a tenth of them.
 */
const SYLLABLES = ['in', 'vo', 'pay', 'ment', 'ship', 'de', 'lay', 're', 'fund', 'con', 'tract', 'meet', 'sche', 'dule', 'pro', 'pos', 'bud', 'get', 'view', 'laun', 'ch', 'out', 'age', 'tic', 'ket', 'ren', 'wal', 'dis', 'count', 'quo', 'or', 'der', 'fee', 'back', 'sur', 'vey'];
const WORDS = Array.from({ length: 3000 }, (_, i) => `${SYLLABLES[i % SYLLABLES.length]}${SYLLABLES[Math.floor(i / SYLLABLES.length) % SYLLABLES.length]}${SYLLABLES[Math.floor(i / 1296) % SYLLABLES.length]}`);
const ZIPF = (() => {
  const weights = WORDS.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  let sum = 0;
  return weights.map((w) => (sum += w / total));
})();
/** A deterministic pseudo-random word by Zipf rank. */
function zipfWord(seed: number): string {
  const u = ((Math.sin(seed * 12.9898) * 43758.5453) % 1 + 1) % 1;
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return WORDS[lo]!;
}
const sentence = (seed: number, words: number) => Array.from({ length: words }, (_, k) => zipfWord(seed * 31 + k)).join(' ');
const round = (n: number) => Math.round(n * 10) / 10;
const stats = (samples: number[]) => latencySummary(samples, [50, 95, 99]) as { p50_ms: number; p95_ms: number; p99_ms: number; max_ms: number };
/** A query word: not among the 50 commonest (what people search for is rarely the commonest word). */
const queryWord = (i: number) => WORDS[50 + ((i * 7919) % (WORDS.length - 50))]!;

export async function runMailBench({ redisUrl, logger, messages = 100_000, inbound = 300, wakeups = 100 }: MailBenchOptions) {
  const smtpPort = await freePort();
  const troupe = await startBenchTroupe({
    redisUrl,
    name: 'mail',
    kindLimits: 'inbox:rate=none,concurrent=none;mail:rate=none,concurrent=none',
    env: { SMTP_PORT: String(smtpPort), MAIL_DOMAIN: 'bench.test', MAIL_SEND_PER_MINUTE: '100000' },
  });
  const connection = await mongoose.createConnection(troupe.mongo.uri, { dbName: troupe.mongo.dbName }).asPromise();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await troupe.mcp.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  try {
    const owner = (await (await UserDirectory.open(connection)).listUsers()).find((u) => u.name === `bench-${process.pid}`)!;
    const inbox = await call('create_inbox', { name: 'Bench', username: 'bench' });
    const inboxId = inbox.id as string;

    logger.info({ inbound }, 'inbound over SMTP');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
    const smtpStarted = performance.now();
    await Promise.all(Array.from({ length: inbound }, (_, i) => transport.sendMail({ from: `sender${i % 40}@outside.test`, to: 'bench@bench.test', subject: `${sentence(i, 3)} #${i % 60}`, text: sentence(i + 7, 20) })));
    const { messages: stored } = mailModels(connection);
    // SMTP accepts a message once it is handed to the inbox: wait until the worker has stored them all.
    while ((await stored.countDocuments({ inboxId, direction: 'inbound' })) < inbound) await new Promise((resolve) => setTimeout(resolve, 20));
    const smtpSeconds = (performance.now() - smtpStarted) / 1000;
    transport.close();

    logger.info({ messages }, 'loading messages for search');
    const now = Date.now();
    for (let start = 0; start < messages; start += 5000) {
      const batch: MessageRecord[] = [];
      for (let i = start; i < Math.min(messages, start + 5000); i += 1) {
        batch.push({
          _id: `msg_${randomBytes(12).toString('hex')}`,
          ownerId: owner.id,
          inboxId,
          threadId: `th_${(i % 5000).toString(16).padStart(24, '0')}`,
          direction: 'inbound',
          message_id: `<${i}@bench.test>`,
          in_reply_to: null,
          references: [],
          from: `sender${i % 500}@outside.test`,
          to: ['bench@bench.test'],
          cc: [],
          subject: sentence(i * 3 + 1, 4),
          content: sentence(i * 3 + 2, 40),
          content_clean: '',
          text: null,
          html: null,
          status: 'received',
          status_reason: null,
          attachment_ids: [],
          created_at: new Date(now - i * 1000),
        });
      }
      await stored.insertMany(batch, { ordered: false });
    }
    await stored.init();
    const ctx = { emit() {}, signal: new AbortController().signal, logger, resources: { mongo: connection, narrator: offlineNarrator(), chatModel: null, mcp: { url: () => undefined, headersFor: async () => ({}) }, embedder: null, gateTimeoutMs: null, mail: DEFAULT_MAIL_SETTINGS } };
    const searchOnce = (query: string) => mailKind.handle({ messageId: 'bench', type: 'search', ownerId: owner.id, createdAt: Date.now(), payload: { query, inbox_id: inboxId, limit: 20, offset: 0 } }, ctx) as Promise<{ results: unknown[] }>;
    await searchOnce(queryWord(0));
    const searches: number[] = [];
    let hits = 0;
    for (let i = 0; i < SEARCH_SAMPLES; i += 1) {
      const started = performance.now();
      hits += (await searchOnce(i % 3 === 0 ? `${queryWord(i)} ${queryWord(i + 1)}` : queryWord(i))).results.length;
      searches.push(performance.now() - started);
    }

    logger.info({ wakeups }, 'timing wait_for_reply wake-ups');
    const sent = await call('send_email', { inbox_id: inboxId, recipient: 'bench@bench.test', subject: 'Wake-up thread', body: 'ping' });
    const threadId = sent.thread_id as string;
    const wake: number[] = [];
    const deliver: number[] = [];
    const afterDelivery: number[] = [];
    for (let i = 0; i < wakeups; i += 1) {
      // Our message first: the reply to wait for is the next inbound one after it.
      await call('send_email', { inbox_id: inboxId, recipient: 'bench@bench.test', subject: 'Re: Wake-up thread', body: `ping ${i}`, thread_id: threadId });
      const waiting = call('wait_for_reply', { thread_id: threadId, timeout_seconds: 60 });
      // A benchmark, not a test: let the wait reach its feed so that this times a wake-up, not a reply
      // the wait finds already stored.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const started = performance.now();
      const delivered = fetch(`${troupe.base}/inboxes/${inboxId}/inbound`, {
        method: 'POST',
        headers: { authorization: `Bearer ${troupe.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'customer@outside.test', subject: 'Re: Wake-up thread', text: `reply ${i}`, in_reply_to: sent.rfc_message_id }),
      }).then(() => performance.now());
      const woke = await waiting.then((answer) => ({ answer, at: performance.now() }));
      const deliveredAt = await delivered;
      if (woke.answer.timed_out) throw new Error('a wait timed out');
      wake.push(woke.at - started);
      deliver.push(deliveredAt - started);
      // The reply is stored and published when its delivery is answered: the wait's return after that.
      afterDelivery.push(woke.at - deliveredAt);
    }

    const search = stats(searches);
    const wakeStats = stats(wake);
    return {
      node: process.version,
      setup: 'troupe mongo (embedded, memory) + 1 troupe worker + 1 troupe gateway (SMTP listener)',
      inbound_smtp: { messages: inbound, seconds: round(smtpSeconds), messages_per_sec: round(inbound / smtpSeconds), path: 'nodemailer (4 connections) → SMTP listener → inbox actor (threading, store)' },
      search: { messages, samples: SEARCH_SAMPLES, mean_hits: round(hits / SEARCH_SAMPLES), ...search, path: 'mail service search: MongoDB text index, owner + inbox filter, textScore sort, limit 20' },
      wake_up: {
        waits: wakeups,
        send_to_return: wakeStats,
        delivery_round_trip: stats(deliver),
        return_after_delivery_answered: stats(afterDelivery),
        path: 'POST inbound (gateway → inbox actor stores, publishes on its feed; answered after the commit) → the gateway holding wait_for_reply wakes; negative: the wait returned before the delivery\'s own answer',
      },
      acceptance: { search_p95_under_30ms: search.p95_ms < 30, wake_up_p99_under_50ms: wakeStats.p99_ms < 50 },
    };
  } finally {
    await connection.close();
    await troupe.stop();
  }
}
