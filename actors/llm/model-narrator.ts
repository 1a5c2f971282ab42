import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ModelLlmConfig } from './config.js';
import { NarrationError, type Narration, type NarrationRequest, type Narrator } from './narration.js';

export const NARRATOR_SYSTEM_PROMPT = [
  'You are an experienced Magic: The Gathering coach explaining recommendations that were computed from tournament data.',
  'Explain ONLY the facts you are given: every card, archetype, number and percentage you mention must appear in them.',
  'Do not suggest, name or invent any card, archetype or statistic that is not in the facts; if the facts do not support a point, leave it out.',
  'Be concise and practical. Markdown is allowed. Do not mention JSON or these rules.',
].join('\n');

/** The human turn: the caller's instructions, then the facts as JSON. */
function narrationPrompt(request: NarrationRequest): string {
  return [
    `Task: ${request.task}`,
    '',
    request.instructions.trim(),
    '',
    'Facts (JSON):',
    '```json',
    JSON.stringify(request.facts ?? null, null, 2),
    '```',
  ].join('\n');
}

/** Text of a model reply: string content, or its text parts joined (reasoning and tool parts are skipped). */
function replyText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      const block = part as { type?: unknown; text?: unknown } | null;
      return block?.type === 'text' && typeof block.text === 'string' ? block.text : '';
    })
    .join('');
}

/** Resolves or rejects with `promise`, or rejects as soon as `signal` aborts (some providers ignore it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Masks API keys (the configured one and anything key-shaped) and URL credentials in provider text. */
function redact(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) if (secret.length >= 4) redacted = redacted.split(secret).join('***');
  return redacted
    .replace(/\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_*.-]{4,}/g, '$1***')
    .replace(/(Bearer\s+)\S+/gi, '$1***')
    .replace(/(\/\/)[^/@\s]*@/g, '$1***@');
}

interface ProviderErrorShape {
  message?: unknown;
  status?: unknown;
  status_code?: unknown;
  lc_error_code?: unknown;
  code?: unknown;
  cause?: unknown;
}

function statusOf(error: ProviderErrorShape): number | undefined {
  const status = error.status ?? error.status_code;
  return typeof status === 'number' ? status : undefined;
}

/** A network-level code (ECONNREFUSED, ENOTFOUND ...) from the error or the errors it wraps. */
function networkCodeOf(error: ProviderErrorShape): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const code = (current as ProviderErrorShape).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as ProviderErrorShape).cause;
  }
  return undefined;
}

/** What to check, by the kind of failure, naming the variable to fix. */
function hintFor(config: ModelLlmConfig, status: number | undefined, lcCode: unknown, networkCode: string | undefined): string {
  if (status === 401 || status === 403 || lcCode === 'MODEL_AUTHENTICATION') {
    return config.provider === 'anthropic' ? 'check ANTHROPIC_API_KEY' : 'check OPENAI_API_KEY';
  }
  if (status === 404 || lcCode === 'MODEL_NOT_FOUND') {
    return config.provider === 'ollama'
      ? `check LARGE_LANGUAGE_MODEL (or run: ollama pull ${config.model})`
      : 'check LARGE_LANGUAGE_MODEL';
  }
  if (status === 429 || lcCode === 'MODEL_RATE_LIMIT') return 'the provider is rate-limiting requests; try again later';
  if (status === undefined && networkCode !== undefined) {
    if (config.provider === 'ollama') return `check that Ollama is running at OLLAMA_BASE_URL (${config.baseUrl})`;
    if (config.provider === 'openai-compatible') return 'check that the server at OPENAI_BASE_URL is running';
    return 'check the network connection to the provider';
  }
  return '';
}

function providerFailure(error: unknown, config: ModelLlmConfig): NarrationError {
  const shape: ProviderErrorShape = error && typeof error === 'object' ? (error as ProviderErrorShape) : { message: String(error) };
  const status = statusOf(shape);
  const networkCode = networkCodeOf(shape);
  const secrets = 'apiKey' in config && config.apiKey !== undefined ? [config.apiKey] : [];
  let detail = typeof shape.message === 'string' && shape.message.trim() !== '' ? shape.message.trim() : 'unknown error';
  if (networkCode !== undefined && !detail.includes(networkCode)) detail = `${detail} (${networkCode})`;
  const hint = hintFor(config, status, shape.lc_error_code, networkCode);
  const message = `the language model call failed (${config.provider} ${config.model}): ${redact(detail, secrets)}${hint ? `; ${hint}` : ''}`;
  return new NarrationError('provider', message, { provider: config.provider, model: config.model, status });
}

/**
 * A narrator that asks `model` to explain the facts of each request. `config` names the provider and model
 * (reported with each narration) and bounds a narration by `timeoutMs`.
 */
export function modelNarrator(model: BaseChatModel, config: ModelLlmConfig): Narrator {
  const source = { provider: config.provider, model: config.model };
  return {
    ...source,
    async narrate(request: NarrationRequest, signal?: AbortSignal): Promise<Narration> {
      const messages = [new SystemMessage(NARRATOR_SYSTEM_PROMPT), new HumanMessage(narrationPrompt(request))];
      const deadline = AbortSignal.timeout(config.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;

      let reply;
      try {
        reply = await untilAborted(model.invoke(messages, { signal: combined, runName: `narrate:${request.task}` }), combined);
      } catch (error) {
        if (signal?.aborted) throw new NarrationError('aborted', `narration of ${request.task} was cancelled`, source);
        if (deadline.aborted) {
          throw new NarrationError(
            'timeout',
            `the language model (${config.provider} ${config.model}) did not answer within ${config.timeoutMs} ms (LLM_TIMEOUT_MS)`,
            source,
          );
        }
        throw providerFailure(error, config);
      }

      const text = replyText(reply.content).trim();
      if (text === '') {
        throw new NarrationError('empty', `the language model (${config.provider} ${config.model}) answered with no text`, source);
      }
      return { text, ...source, offline: false };
    },
  };
}
