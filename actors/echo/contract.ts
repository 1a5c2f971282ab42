/** The echo actor's contract: its messages and its MCP tool. */
import { z } from 'zod';
import type { ToolContract } from '../runtime/contract.js';

export const SayPayload = z.object({ text: z.string().min(1).max(10_000) }).strict();
export type SayPayload = z.infer<typeof SayPayload>;

export const messages = { say: SayPayload };

export interface EchoState {
  /** Messages this echo actor has answered. */
  count: number;
}

const sayInput = {
  text: z.string().min(1).max(10_000).describe('What to echo back'),
  channel: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/)
    .default('default')
    .describe('Echo actor to talk to; each channel counts its own messages'),
};

export const tools: ToolContract[] = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Diagnostics: sends text through the whole pipeline (gateway, queue, actor, reply stream) and returns it with the channel\'s message count.',
    input: sayInput,
    output: { text: z.string(), count: z.number().int() },
    toMessage: (args) => ({ actorId: (args as { channel: string }).channel, type: 'say', payload: { text: (args as { text: string }).text } }),
  },
];
