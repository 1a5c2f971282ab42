/**
 * Narration: turning recommendations the data layer computed into prose. A tool computes the facts (and a
 * template explanation of them); a {@link Narrator} explains them, with a language model or offline.
 */

export interface NarrationRequest {
  /** What is being explained, as a stable key (e.g. 'matchup_strategy', 'optimize_mainboard'). */
  task: string;
  /** What to explain, addressed to a model. */
  instructions: string;
  /** The JSON the data layer computed. A model explains only these; it never adds cards. */
  facts: unknown;
  /** A plain-prose explanation the caller wrote from templates; the offline narrator returns it. */
  fallback: string;
}

export interface Narration {
  text: string;
  provider: string;
  model: string | null;
  /** True when no language model wrote `text` (it is the caller's template text). */
  offline: boolean;
}

export interface Narrator {
  readonly provider: string;
  readonly model: string | null;
  /** Rejects with {@link NarrationError} when the model cannot answer; `signal` cancels. */
  narrate(request: NarrationRequest, signal?: AbortSignal): Promise<Narration>;
}

/**
 * Why a narration failed: the model took longer than LLM_TIMEOUT_MS, the caller aborted, the provider
 * answered with an error or could not be reached, or it answered with no text.
 */
export type NarrationFailure = 'timeout' | 'aborted' | 'provider' | 'empty';

/** A model narration that failed. The message names provider and model and never contains an API key. */
export class NarrationError extends Error {
  readonly failure: NarrationFailure;
  readonly provider: string;
  readonly model: string | null;
  /** The provider's HTTP status, when it answered with one. */
  readonly status: number | undefined;

  constructor(failure: NarrationFailure, message: string, source: { provider: string; model: string | null; status?: number }) {
    super(message);
    this.name = 'NarrationError';
    this.failure = failure;
    this.provider = source.provider;
    this.model = source.model;
    this.status = source.status;
  }
}
