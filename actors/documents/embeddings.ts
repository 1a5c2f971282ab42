/**
 * Semantic search's two halves: an embedding model behind a small interface (so tests and offline runs
 * can plug in their own), and the pure arithmetic that ranks by similarity and fuses rankings.
 */

export interface Embedder {
  /** Which model made the vectors, e.g. `openai:text-embedding-3-small`; for logs and error messages. */
  readonly name: string;
  /** One vector per text, in order. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

export const EMBEDDINGS_PROVIDERS = ['openai', 'ollama', 'openai-compatible'] as const;
export type EmbeddingsProvider = (typeof EMBEDDINGS_PROVIDERS)[number];

export interface EmbedderOptions {
  provider: EmbeddingsProvider;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

export const DEFAULT_EMBEDDING_MODELS: Record<EmbeddingsProvider, string> = {
  openai: 'text-embedding-3-small',
  'openai-compatible': 'text-embedding-3-small',
  ollama: 'nomic-embed-text',
};

/** As for chat models: a failed call is retried with backoff, but not for minutes. */
const EMBEDDING_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 30_000;

/** OpenAI-compatible servers (vLLM, llama.cpp, LM Studio) often need no key, but the OpenAI SDK wants one. */
const NO_API_KEY = 'not-needed';

/**
 * Construction only: nothing touches the network, and the provider's package is not even imported,
 * until the first `embed` (an offline process never loads LangChain's providers).
 */
export function embedderFor(options: EmbedderOptions): Embedder {
  const model = options.model ?? DEFAULT_EMBEDDING_MODELS[options.provider];
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const name = `${options.provider}:${model}`;
  switch (options.provider) {
    case 'openai':
      return langChainEmbedder(name, async () => {
        const { OpenAIEmbeddings } = await import('@langchain/openai');
        return new OpenAIEmbeddings({
          model,
          apiKey: options.apiKey,
          timeout: timeoutMs,
          maxRetries: EMBEDDING_MAX_RETRIES,
          ...(options.baseUrl === undefined ? {} : { configuration: { baseURL: options.baseUrl } }),
        });
      });
    case 'openai-compatible':
      if (!options.baseUrl) throw new Error('embeddings: the openai-compatible provider needs a baseUrl');
      return langChainEmbedder(name, async () => {
        const { OpenAIEmbeddings } = await import('@langchain/openai');
        return new OpenAIEmbeddings({
          model,
          apiKey: options.apiKey ?? NO_API_KEY,
          timeout: timeoutMs,
          maxRetries: EMBEDDING_MAX_RETRIES,
          configuration: { baseURL: options.baseUrl },
        });
      });
    case 'ollama':
      return langChainEmbedder(name, async () => {
        const { OllamaEmbeddings } = await import('@langchain/ollama');
        return new OllamaEmbeddings({
          model,
          ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
          maxRetries: EMBEDDING_MAX_RETRIES,
          fetch: (input, init) => {
            const deadline = AbortSignal.timeout(timeoutMs);
            return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
          },
        });
      });
  }
}

interface LangChainEmbeddings {
  embedDocuments(texts: string[]): Promise<number[][]>;
}

function langChainEmbedder(name: string, build: () => Promise<LangChainEmbeddings>): Embedder {
  let model: Promise<LangChainEmbeddings> | undefined;
  return {
    name,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      model ??= build();
      const vectors = await untilAborted((await model).embedDocuments(texts), signal);
      if (vectors.length !== texts.length) {
        throw new Error(`embeddings: ${name} returned ${vectors.length} vectors for ${texts.length} texts`);
      }
      return vectors;
    },
  };
}

/** LangChain's embeddings take no signal; the caller stops waiting instead. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Cosine similarity; 0 when either vector is all zeros. Vectors of different lengths cannot be compared. */
export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new RangeError(`cosine: vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking gives an id 1 / (k + rank), rank from 1.
 * Scores of differently scaled rankers (BM25, cosine) cannot be added; their ranks can.
 */
export function reciprocalRankFusion(rankings: string[][], k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, position) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + position + 1)));
  }
  return fused;
}
