import type { Narration, NarrationRequest, Narrator } from './narration.js';

/** Appended to every offline narration. */
export const OFFLINE_NOTICE =
  'No language model is configured, so this explanation was written from built-in templates; ' +
  'set LLM_PROVIDER and LARGE_LANGUAGE_MODEL to have a model explain these results.';

/** The narrator when LLM_PROVIDER is offline: the caller's template text plus a plain notice. Deterministic. */
export function offlineNarrator(): Narrator {
  return {
    provider: 'offline',
    model: null,
    async narrate(request: NarrationRequest): Promise<Narration> {
      const fallback = request.fallback.trim();
      const text = fallback === '' ? OFFLINE_NOTICE : `${fallback}\n\n${OFFLINE_NOTICE}`;
      return { text, provider: 'offline', model: null, offline: true };
    },
  };
}
