/**
 * The naive peer's gateway (an entry point, run through tsx): Koa answering troupe's
 * `POST /actors/echo/:id/messages` the way one writes it without troupe — check the API key (cached),
 * `queue.add()` a BullMQ job, `job.waitUntilFinished(queueEvents)`, and answer JSON `{ reply }` or a
 * one-event SSE (`done`). The same load generator drives it and troupe.
 *
 * Keys are the ones `troupe users create` made, checked as api-keys.ts says.
 *
 * For the benchmark each message is stamped with its actor's arrival sequence number, so the worker can
 * tell when a message ran after a later-arrived one.
 */
import { once } from 'node:events';
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import Koa, { type Context } from 'koa';
import mongoose from 'mongoose';
import { z } from 'zod';
import { apiKeyCheck, requestKey } from './api-keys.js';
import { PeerEnv, SayReply, type SayJob } from './contract.js';

const env = PeerEnv.extend({
  PORT: z.coerce.number().int().min(1).max(65_535),
  HOST: z.string().min(1).default('127.0.0.1'),
}).parse(process.env);

/** How long a client waits for the worker before a 504. */
const REPLY_TIMEOUT_MS = 30_000;

const ActorIdParam = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:@-]+$/);
const SayBody = z.object({ type: z.literal('say'), payload: z.object({ text: z.string().max(10_000) }) });

const connection = await mongoose.createConnection(env.MONGODB_URI, { dbName: env.MONGODB_DB }).asPromise();
const checkKey = apiKeyCheck(connection);

const queueRedis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const eventsRedis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue<SayJob, SayReply>(env.NAIVE_PEER_QUEUE, {
  connection: queueRedis,
  // Not `removeOnComplete: true`: waitUntilFinished checks the job once after subscribing, and a job
  // already deleted by then reads as "missing" and rejects. Keeping the last 1000 closes that window.
  defaultJobOptions: { removeOnComplete: { count: 1_000 }, removeOnFail: { count: 1_000 } },
});
const queueEvents = new QueueEvents(env.NAIVE_PEER_QUEUE, { connection: eventsRedis });
// waitUntilFinished adds a 'closing' listener to the queue per waiting request: dozens at once is the
// normal case here, not a leak, and Node's warning would otherwise be printed over and over.
queue.setMaxListeners(0);
queue.on('error', (error) => console.error('naive peer gateway: queue error', error));
queueEvents.on('error', (error) => console.error('naive peer gateway: queue events error', error));

/** Per actor, how many messages this (single) gateway has received: each message's arrival order. */
const arrivals = new Map<string, number>();

function fail(ctx: Context, status: number, code: string, message: string, details?: unknown) {
  ctx.status = status;
  ctx.body = { error: { code, message, ...(details === undefined ? {} : { details }) } };
}

const app = new Koa();
// Errors thrown below (e.g. bodyparser's on bad JSON) answer JSON, as every other answer does.
app.use(async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : 500;
    fail(ctx, status, status < 500 ? 'bad_request' : 'internal', status < 500 ? (error as Error).message : 'internal error');
    if (status >= 500) console.error('naive peer gateway:', error);
  }
});
app.use(async (ctx, next) => {
  const key = requestKey(ctx.get('authorization'), ctx.get('x-api-key'));
  if (!key || (await checkKey(key)) === undefined) return fail(ctx, 401, 'unauthorized', 'a valid API key is required');
  await next();
});
app.use(bodyParser({ enableTypes: ['json'] }));

const router = new Router();
router.post('/actors/echo/:id/messages', async (ctx) => {
  const id = ActorIdParam.safeParse(ctx.params.id);
  if (!id.success) return fail(ctx, 400, 'bad_request', 'invalid actor id', id.error.issues);
  const body = SayBody.safeParse(ctx.request.body ?? {});
  if (!body.success) return fail(ctx, 400, 'bad_request', 'invalid message body', body.error.issues);
  const seq = (arrivals.get(id.data) ?? 0) + 1;
  arrivals.set(id.data, seq);
  const job = await queue.add('say', { actorId: id.data, text: body.data.payload.text, seq });
  let reply: SayReply;
  try {
    reply = SayReply.parse(await job.waitUntilFinished(queueEvents, REPLY_TIMEOUT_MS));
  } catch (error) {
    const message = (error as Error).message;
    return message.includes('timed out') ? fail(ctx, 504, 'reply_timeout', message) : fail(ctx, 500, 'turn_failed', message);
  }
  if (ctx.get('accept').includes('text/event-stream')) {
    // The whole answer is known by now: one event, written at once.
    ctx.type = 'text/event-stream';
    ctx.set('cache-control', 'no-cache');
    ctx.body = `event: done\ndata: ${JSON.stringify(reply)}\n\n`;
  } else {
    ctx.body = { reply };
  }
});
app.use(router.routes()).use(router.allowedMethods());

await queueEvents.waitUntilReady();
const server = app.listen(env.PORT, env.HOST);
await once(server, 'listening');
console.log(`naive peer gateway listening on http://${env.HOST}:${env.PORT} (queue ${env.NAIVE_PEER_QUEUE})`);

async function shutdown() {
  server.close();
  server.closeAllConnections();
  await queueEvents.close();
  await queue.close();
  queueRedis.disconnect();
  eventsRedis.disconnect();
  await connection.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
