import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { LlmConfig, ModelLlmConfig } from './config.js';

/**
 * LangChain retries a failed call (rate limit, 5xx, network) with exponential backoff; its default of 6
 * retries can keep a tool call waiting for minutes, so troupe allows 2.
 */
const LLM_MAX_RETRIES = 2;

/**
 * The OpenAI SDK refuses to build a client without a key, but many OpenAI-compatible servers (vLLM,
 * llama.cpp, LM Studio) need none; they ignore the bearer token this sends.
 */
const NO_API_KEY = 'not-needed';

/**
 * Ollama's client takes no timeout, so its requests get one here: the whole request (Ollama streams its
 * answer) is aborted after `timeoutMs`, as well as when LangChain aborts it.
 */
function fetchWithTimeout(timeoutMs: number): typeof fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
}

/**
 * The chat model the configuration names, or `null` for `offline`. Construction only: nothing here
 * touches the network (clients connect on the first call). The same model serves agents and tools.
 * Each provider's package is imported only when it is the one configured: together they are about
 * 600 modules, which an offline process never needs to load.
 */
export async function createChatModel(config: ModelLlmConfig): Promise<BaseChatModel>;
export async function createChatModel(config: LlmConfig): Promise<BaseChatModel | null>;
export async function createChatModel(config: LlmConfig): Promise<BaseChatModel | null> {
  switch (config.provider) {
    case 'offline':
      return null;
    case 'openai': {
      const { ChatOpenAI } = await import('@langchain/openai');
      return new ChatOpenAI({
        model: config.model,
        apiKey: config.apiKey,
        temperature: config.temperature,
        timeout: config.timeoutMs,
        maxRetries: LLM_MAX_RETRIES,
        ...(config.baseUrl === undefined ? {} : { configuration: { baseURL: config.baseUrl } }),
      });
    }
    case 'openai-compatible': {
      const { ChatOpenAI } = await import('@langchain/openai');
      return new ChatOpenAI({
        model: config.model,
        apiKey: config.apiKey ?? NO_API_KEY,
        temperature: config.temperature,
        timeout: config.timeoutMs,
        maxRetries: LLM_MAX_RETRIES,
        configuration: { baseURL: config.baseUrl },
      });
    }
    case 'anthropic': {
      const { ChatAnthropic } = await import('@langchain/anthropic');
      return new ChatAnthropic({
        model: config.model,
        apiKey: config.apiKey,
        temperature: config.temperature,
        maxRetries: LLM_MAX_RETRIES,
        clientOptions: { timeout: config.timeoutMs },
      });
    }
    case 'ollama': {
      const { ChatOllama } = await import('@langchain/ollama');
      return new ChatOllama({
        model: config.model,
        baseUrl: config.baseUrl,
        temperature: config.temperature,
        maxRetries: LLM_MAX_RETRIES,
        fetch: fetchWithTimeout(config.timeoutMs),
      });
    }
  }
}
