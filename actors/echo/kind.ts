/**
 * The echo actor: a diagnostic that exercises the whole pipeline. It streams the text back a word at a
 * time (as `token` events) and replies with the text and how many messages it has answered.
 */
import type { ActorKind } from '../runtime/contract.js';
import { messages, tools, type EchoState, type SayPayload } from './contract.js';

export const echoKind: ActorKind<EchoState> = {
  kind: 'echo',
  stateful: true,
  description: 'Diagnostics: echoes text back, streaming it word by word.',
  messages,
  tools,
  limits: { rate: { points: 600, durationSeconds: 60 }, concurrent: 50 },
  initialState: () => ({ count: 0 }),
  handle(state, message, ctx) {
    const { text } = message.payload as SayPayload;
    for (const word of text.split(/\s+/).filter(Boolean)) ctx.emit('token', { text: word });
    const next = { count: state.count + 1 };
    ctx.reply({ text, count: next.count });
    return next;
  },
};
