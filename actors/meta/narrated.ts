/**
 * The prose part of the coaching tools. The facts are computed from the data first; the narrator
 * (a language model, or the offline templates) only explains them. A model that fails does not fail the
 * tool: the template text is returned with a note saying what went wrong.
 */
import { NarrationError, type Narrator } from '../llm/narration.js';
import type { Logger } from '../runtime/contract.js';

export interface Narrated {
  text: string;
  narrator: { provider: string; model: string | null; offline: boolean };
}

export async function narrate(
  narrator: Narrator,
  request: { task: string; instructions: string; facts: unknown; fallback: string },
  context: { signal?: AbortSignal; logger: Logger },
): Promise<Narrated> {
  try {
    const narration = await narrator.narrate(request, context.signal);
    return { text: narration.text, narrator: { provider: narration.provider, model: narration.model, offline: narration.offline } };
  } catch (e) {
    if (!(e instanceof NarrationError)) throw e;
    context.logger.warn({ err: e, task: request.task }, 'language model narration failed; answering with the template text');
    return {
      text: `${request.fallback}\n\n(The configured language model could not write this explanation: ${e.message}. The text above was written from templates.)`,
      narrator: { provider: narrator.provider, model: narrator.model, offline: true },
    };
  }
}

/** "a, b and c" */
export function listing(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export const percent = (value: number | null): string => (value === null ? 'too few matches to say' : `${value}%`);
