/**
 * What the naive peers' processes agree on: for the echo peer, the job its gateway and worker pass
 * through BullMQ, the reply that comes back, the environment both are started with, and where the
 * worker counts ordering violations (both sides parse with these schemas, since Redis is a boundary like
 * any other); for the game peer, where its games are kept.
 */
import { z } from 'zod';

/** One `say` message for one echo actor, stamped by the gateway with the actor's arrival order. */
export const SayJob = z.object({
  actorId: z.string().min(1).max(200),
  text: z.string(),
  /** 1, 2, 3… per actor, in the order the (single) gateway received the messages. */
  seq: z.number().int().positive(),
});
export type SayJob = z.infer<typeof SayJob>;

/** The echo reply, as troupe's echo actor gives it: the text and the actor's count after this message. */
export const SayReply = z.object({ text: z.string(), count: z.number().int().positive() });
export type SayReply = z.infer<typeof SayReply>;

/** Environment shared by both entry points (the gateway reads PORT and HOST too). */
export const PeerEnv = z.object({
  REDIS_URL: z.string().url(),
  MONGODB_URI: z.string().min(1),
  MONGODB_DB: z.string().min(1),
  NAIVE_PEER_QUEUE: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a queue name is letters, digits and . _ -'),
});

/** The MongoDB collection holding the echo actors' counts. */
export const ACTORS_COLLECTION = 'naive_peer_actors';

/** The MongoDB collection holding the game peer's games, one document each. */
export const GAMES_COLLECTION = 'naive_peer_games';

/**
 * The Redis key counting messages that ran after a later-arrived message to the same actor. Under the
 * queue's own `bull:<queue>:` prefix, so removing the queue's keys removes it too.
 */
export const violationsKey = (queueName: string): string => `bull:${queueName}:naive-peer-ordering-violations`;
