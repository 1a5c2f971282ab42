/**
 * The far end of `machine-hops.ts` (an entry point, run through tsx): another process that subscribes to
 * one channel and notes how long each message took to reach it since it was published. The publisher
 * stamps `label \t sentAt` (epoch ms with a fraction: processes on one machine share its clock); `end`
 * makes it print what it noted, as one JSON line, and exit.
 */
import { z } from 'zod';
import { createRedisClient } from '../../queues/redis-client.js';

const ListenerEnv = z.object({
  REDIS_URL: z.string().url(),
  MACHINE_HOPS_CHANNEL: z.string().min(1).max(200),
});
const Stamp = z.tuple([z.string().min(1).max(40), z.coerce.number().positive()]);

const env = ListenerEnv.parse(process.env);
const subscriber = createRedisClient(env.REDIS_URL, { maxRetriesPerRequest: 1 });
const noted: Record<string, number[]> = {};

subscriber.on('message', (_channel: string, message: string) => {
  const heardAt = performance.timeOrigin + performance.now();
  if (message === 'end') {
    process.stdout.write(`${JSON.stringify({ one_way_ms: noted })}\n`);
    subscriber.disconnect();
    return;
  }
  const stamp = Stamp.safeParse(message.split('\t'));
  if (!stamp.success) return;
  const [label, sentAt] = stamp.data;
  (noted[label] ??= []).push(heardAt - sentAt);
});
await subscriber.subscribe(env.MACHINE_HOPS_CHANNEL);
process.stdout.write('listening\n');
