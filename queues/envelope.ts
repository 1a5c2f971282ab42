/** The message envelope every actor message travels in, validated wherever it crosses a boundary. */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HopTrace } from './hop-trace.js';

export const ActorKindName = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'an actor kind is lower-case letters, digits and dashes');
export const ActorId = z.string().min(1).max(200).regex(/^[A-Za-z0-9._:@-]+$/, 'an actor id is letters, digits and . _ : @ -');

export const ActorRef = z.object({ kind: ActorKindName, id: ActorId });
export type ActorRef = z.infer<typeof ActorRef>;

/** A concurrency-cap lease the turn holds; the runtime releases it when the turn ends. */
export const Lease = z.object({ key: z.string().min(1), id: z.string().min(1) });
export type Lease = z.infer<typeof Lease>;

export const Envelope = z.object({
  messageId: z.string().min(1).max(100),
  actor: ActorRef,
  ownerId: z.string().min(1).max(200),
  type: z.string().min(1).max(100),
  payload: z.unknown(),
  idempotencyKey: z.string().min(1).max(200).optional(),
  /** Redis Stream the turn's events and reply go to; absent for fire-and-forget messages. */
  replyStream: z.string().min(1).optional(),
  /** Pub/sub channel of the gateway waiting on the reply stream: it is told of new entries as they are added. */
  notify: z.string().min(1).max(300).optional(),
  createdAt: z.number().int().nonnegative(),
  /** Epoch ms after which the message is answered with an error instead of being applied. */
  deadline: z.number().int().positive().optional(),
  lease: Lease.optional(),
  /** Batch this message belongs to (progress is counted when it is done). */
  batchId: z.string().min(1).optional(),
  /** Hops stamped so far, when the gateway traces this message (TRACE_HOPS): the worker adds its own. */
  trace: HopTrace.optional(),
});
export type Envelope = z.infer<typeof Envelope>;

export type EnvelopeInput = Omit<Envelope, 'messageId' | 'createdAt'> & Partial<Pick<Envelope, 'messageId' | 'createdAt'>>;

export function envelope(input: EnvelopeInput): Envelope {
  return Envelope.parse({ messageId: randomUUID(), createdAt: Date.now(), ...input });
}

export const refKey = (ref: ActorRef) => `${ref.kind}:${ref.id}`;
