import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';
import { expect } from 'chai';
import { createChatModel } from '../../../actors/llm/chat-model.js';
import { loadConfig } from '../../../scripts/config.js';

describe('createChatModel', () => {
  const realFetch = globalThis.fetch;
  let fetched: string[];

  beforeEach(() => {
    fetched = [];
    globalThis.fetch = async (input) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      throw new Error('no network in unit tests');
    };
  });

  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('returns null for offline', async () => {
    expect(await createChatModel(loadConfig({}).llm)).to.equal(null);
  });

  it('builds ChatOpenAI for openai', async () => {
    const model = await createChatModel(
      loadConfig({ LLM_PROVIDER: 'openai', LARGE_LANGUAGE_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test', LLM_TEMPERATURE: '0.3', LLM_TIMEOUT_MS: '5000' }).llm,
    );
    expect(model).to.be.instanceOf(ChatOpenAI);
    const openai = model as ChatOpenAI;
    expect(openai.model).to.equal('gpt-4o-mini');
    expect(openai.temperature).to.equal(0.3);
    expect(openai.timeout).to.equal(5000);
    expect(openai.apiKey).to.equal('sk-test');
    expect(fetched).to.deep.equal([]);
  });

  it('builds ChatOpenAI against OPENAI_BASE_URL for openai-compatible, keyless servers included', async () => {
    const model = await createChatModel(
      loadConfig({ LLM_PROVIDER: 'openai-compatible', LARGE_LANGUAGE_MODEL: 'qwen2.5', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' }).llm,
    ) as ChatOpenAI;
    expect(model).to.be.instanceOf(ChatOpenAI);
    expect(model.model).to.equal('qwen2.5');
    expect(model.clientConfig.baseURL).to.equal('http://127.0.0.1:8000/v1');
    expect(model.apiKey).to.be.a('string').and.not.equal('');
    expect(fetched).to.deep.equal([]);
  });

  it('builds ChatAnthropic for anthropic', async () => {
    const model = await createChatModel(
      loadConfig({ LLM_PROVIDER: 'anthropic', LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_TIMEOUT_MS: '7000' }).llm,
    );
    expect(model).to.be.instanceOf(ChatAnthropic);
    const anthropic = model as ChatAnthropic;
    expect(anthropic.model).to.equal('claude-sonnet-4-5');
    expect(anthropic.clientOptions.timeout).to.equal(7000);
    expect(fetched).to.deep.equal([]);
  });

  it('builds ChatOllama for ollama', async () => {
    const model = await createChatModel(loadConfig({ LLM_PROVIDER: 'ollama', LARGE_LANGUAGE_MODEL: 'llama3.1' }).llm);
    expect(model).to.be.instanceOf(ChatOllama);
    const ollama = model as ChatOllama;
    expect(ollama.model).to.equal('llama3.1');
    expect(ollama.baseUrl).to.equal('http://127.0.0.1:11434');
    expect(fetched).to.deep.equal([]);
  });

  it('gives Ollama requests the configured timeout', async () => {
    let requestSignal: AbortSignal | undefined;
    globalThis.fetch = (_input, init) => {
      requestSignal = init?.signal ?? undefined;
      return new Promise((_resolve, reject) => requestSignal?.addEventListener('abort', () => reject(requestSignal!.reason)));
    };
    const model = await createChatModel(loadConfig({ LLM_PROVIDER: 'ollama', LARGE_LANGUAGE_MODEL: 'llama3.1', LLM_TIMEOUT_MS: '20' }).llm);
    let failure: unknown;
    await model!.invoke('hello').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(requestSignal?.aborted).to.equal(true);
    expect((requestSignal!.reason as Error).name).to.equal('TimeoutError');
  });
});
