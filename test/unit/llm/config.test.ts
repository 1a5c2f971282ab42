import { expect } from 'chai';
import { z } from 'zod';
import { DEFAULT_LLM_TIMEOUT_MS, LLM_PROVIDERS, llmConfigFromEnv, llmEnvSchema, type LlmConfig } from '../../../actors/llm/config.js';
import { ConfigError, loadConfig } from '../../../scripts/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env).llm;
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('parseLlmConfig', () => {
  it('defaults to offline when nothing is set', () => {
    expect(loadConfig({}).llm).to.deep.equal({ provider: 'offline' });
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ LLM_PROVIDER: '', LARGE_LANGUAGE_MODEL: '', OPENAI_API_KEY: '' }).llm).to.deep.equal({ provider: 'offline' });
  });

  it('ignores model settings when the provider is offline', () => {
    expect(loadConfig({ LLM_PROVIDER: 'offline', LARGE_LANGUAGE_MODEL: 'gpt-4o-mini' }).llm).to.deep.equal({ provider: 'offline' });
  });

  it('reads openai', () => {
    const expected: LlmConfig = {
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      baseUrl: undefined,
      temperature: undefined,
      timeoutMs: DEFAULT_LLM_TIMEOUT_MS,
    };
    expect(loadConfig({ LLM_PROVIDER: 'openai', LARGE_LANGUAGE_MODEL: 'gpt-4o-mini', OPENAI_API_KEY: 'sk-test' }).llm).to.deep.equal(expected);
  });

  it('reads openai with a base URL, temperature and timeout', () => {
    expect(
      loadConfig({
        LLM_PROVIDER: 'openai',
        LARGE_LANGUAGE_MODEL: 'gpt-4o-mini',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: 'https://proxy.example.com/v1',
        LLM_TEMPERATURE: '0.2',
        LLM_TIMEOUT_MS: '15000',
      }).llm,
    ).to.deep.equal({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      baseUrl: 'https://proxy.example.com/v1',
      temperature: 0.2,
      timeoutMs: 15000,
    });
  });

  it('reads anthropic', () => {
    expect(
      loadConfig({ LLM_PROVIDER: 'anthropic', LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-ant-test', LLM_TEMPERATURE: '1' }).llm,
    ).to.deep.equal({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test',
      temperature: 1,
      timeoutMs: DEFAULT_LLM_TIMEOUT_MS,
    });
  });

  it('reads ollama, with the local default URL', () => {
    expect(loadConfig({ LLM_PROVIDER: 'ollama', LARGE_LANGUAGE_MODEL: 'llama3.1' }).llm).to.deep.equal({
      provider: 'ollama',
      model: 'llama3.1',
      baseUrl: 'http://127.0.0.1:11434',
      temperature: undefined,
      timeoutMs: DEFAULT_LLM_TIMEOUT_MS,
    });
    expect(loadConfig({ LLM_PROVIDER: 'ollama', LARGE_LANGUAGE_MODEL: 'llama3.1', OLLAMA_BASE_URL: 'http://gpu-box:11434' }).llm)
      .to.have.property('baseUrl', 'http://gpu-box:11434');
  });

  it('reads openai-compatible, with or without an API key', () => {
    expect(
      loadConfig({ LLM_PROVIDER: 'openai-compatible', LARGE_LANGUAGE_MODEL: 'qwen2.5', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' }).llm,
    ).to.deep.equal({
      provider: 'openai-compatible',
      model: 'qwen2.5',
      baseUrl: 'http://127.0.0.1:8000/v1',
      apiKey: undefined,
      temperature: undefined,
      timeoutMs: DEFAULT_LLM_TIMEOUT_MS,
    });
    expect(
      loadConfig({
        LLM_PROVIDER: 'openai-compatible',
        LARGE_LANGUAGE_MODEL: 'qwen2.5',
        OPENAI_BASE_URL: 'https://llm.example.com/v1',
        OPENAI_API_KEY: 'token',
      }).llm,
    ).to.have.property('apiKey', 'token');
  });

  for (const provider of LLM_PROVIDERS.filter((p) => p !== 'offline')) {
    it(`requires LARGE_LANGUAGE_MODEL for ${provider}`, () => {
      const error = configError({ LLM_PROVIDER: provider, OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', OPENAI_BASE_URL: 'http://h/v1' });
      expect(error.problems).to.have.length(1);
      expect(error.problems[0]).to.include({ variable: 'LARGE_LANGUAGE_MODEL', received: undefined });
      expect(error.problems[0]!.expected).to.contain(`required when LLM_PROVIDER is ${provider}`);
      expect(error.message).to.contain('LARGE_LANGUAGE_MODEL must be a model name');
    });
  }

  it('requires OPENAI_API_KEY for openai and ANTHROPIC_API_KEY for anthropic', () => {
    expect(configError({ LLM_PROVIDER: 'openai', LARGE_LANGUAGE_MODEL: 'gpt-4o-mini' }).problems.map((p) => p.variable)).to.deep.equal([
      'OPENAI_API_KEY',
    ]);
    expect(configError({ LLM_PROVIDER: 'anthropic', LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5' }).message).to.match(
      /ANTHROPIC_API_KEY must be an API key, required when LLM_PROVIDER is anthropic/,
    );
  });

  it('requires OPENAI_BASE_URL for openai-compatible', () => {
    const error = configError({ LLM_PROVIDER: 'openai-compatible', LARGE_LANGUAGE_MODEL: 'qwen2.5' });
    expect(error.problems.map((p) => p.variable)).to.deep.equal(['OPENAI_BASE_URL']);
  });

  it('reports every missing variable at once', () => {
    expect(configError({ LLM_PROVIDER: 'openai' }).problems.map((p) => p.variable)).to.have.members(['LARGE_LANGUAGE_MODEL', 'OPENAI_API_KEY']);
  });

  it('rejects an unknown provider, listing the valid ones', () => {
    const error = configError({ LLM_PROVIDER: 'gemini' });
    expect(error.problems).to.deep.equal([
      { variable: 'LLM_PROVIDER', expected: 'one of offline, openai, anthropic, ollama, openai-compatible', received: 'gemini' },
    ]);
    expect(error.message).to.equal(
      'invalid configuration:\n  LLM_PROVIDER must be one of offline, openai, anthropic, ollama, openai-compatible (got "gemini")',
    );
  });

  it('rejects bad numbers and URLs by name', () => {
    const error = configError({ LLM_TEMPERATURE: 'hot', LLM_TIMEOUT_MS: '0', OLLAMA_BASE_URL: 'ftp://host' });
    expect(error.problems.map((p) => p.variable)).to.have.members(['LLM_TEMPERATURE', 'LLM_TIMEOUT_MS', 'OLLAMA_BASE_URL']);
    expect(configError({ LLM_TEMPERATURE: '2.5' }).problems[0]).to.include({ variable: 'LLM_TEMPERATURE', expected: 'a number from 0 to 2 (e.g. 0.2)' });
  });

  it('holds anthropic to temperatures up to 1', () => {
    const error = configError({ LLM_PROVIDER: 'anthropic', LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', LLM_TEMPERATURE: '1.5' });
    expect(error.problems[0]).to.include({ variable: 'LLM_TEMPERATURE', expected: 'a number from 0 to 1 when LLM_PROVIDER is anthropic' });
  });

  it('never echoes an API key and masks URL credentials', () => {
    const error = configError({ OPENAI_API_KEY: '   ', OPENAI_BASE_URL: 'ftp://user:hunter2@host/v1' });
    expect(error.problems).to.deep.include({ variable: 'OPENAI_API_KEY', expected: 'a non-empty API key', received: '***' });
    expect(error.problems.find((p) => p.variable === 'OPENAI_BASE_URL')!.received).to.equal('ftp://***@host/v1');
    expect(error.message).not.to.contain('hunter2');
  });
});

describe('llmEnvSchema with llmConfigFromEnv in a larger env schema', () => {
  const appSchema = z
    .object({ PORT: z.string().default('8080'), ...llmEnvSchema.shape })
    .transform((env, ctx) => ({ port: env.PORT, llm: llmConfigFromEnv(env, ctx) }));

  it('builds the llm section', () => {
    expect(appSchema.parse({})).to.deep.equal({ port: '8080', llm: { provider: 'offline' } });
  });

  it('reports a missing variable under its own name', () => {
    const result = appSchema.safeParse({ LLM_PROVIDER: 'anthropic', LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5' });
    expect(result.success).to.equal(false);
    expect(result.error!.issues.map((issue) => issue.path)).to.deep.equal([['ANTHROPIC_API_KEY']]);
  });
});
