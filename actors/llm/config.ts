import { z } from 'zod';

/**
 * The language-model settings every troupe feature shares (tool-internal narration now, agents later).
 * `offline` means no model: tools explain their results from templates instead.
 */
export const LLM_PROVIDERS = ['offline', 'openai', 'anthropic', 'ollama', 'openai-compatible'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434';
export const DEFAULT_LLM_TIMEOUT_MS = 60_000;

interface ModelSettings {
  /** LARGE_LANGUAGE_MODEL, passed to the provider as is (e.g. gpt-4o-mini, claude-sonnet-4-5, llama3.1). */
  model: string;
  /** Unset: the provider's own default (some reasoning models accept no other value). */
  temperature: number | undefined;
  /** Bounds one request to the provider, and one whole narration. */
  timeoutMs: number;
}

export type LlmConfig =
  | { provider: 'offline' }
  | ({ provider: 'openai'; apiKey: string; /** Unset: the OpenAI SDK's default endpoint. */ baseUrl: string | undefined } & ModelSettings)
  | ({ provider: 'anthropic'; apiKey: string } & ModelSettings)
  | ({ provider: 'ollama'; baseUrl: string } & ModelSettings)
  | ({ provider: 'openai-compatible'; baseUrl: string; /** Local servers often need none. */ apiKey: string | undefined } & ModelSettings);

/** Every configuration that names a model (all but `offline`). */
export type ModelLlmConfig = Exclude<LlmConfig, { provider: 'offline' }>;

/** Variables that are secrets as a whole: never echoed, even when invalid. */
export const LLM_SECRET_VARIABLES: ReadonlySet<string> = new Set(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']);
/** URL variables that may carry `user:password@`: echoed with the credentials masked. */
export const LLM_URL_VARIABLES: ReadonlySet<string> = new Set(['OPENAI_BASE_URL', 'OLLAMA_BASE_URL']);

const HTTP_URL_FORM = 'an http:// or https:// URL';
const TEMPERATURE_FORM = 'a number from 0 to 2 (e.g. 0.2)';
const TIMEOUT_FORM = 'a positive integer (milliseconds)';

function httpUrl(example: string) {
  return z.url({ protocol: /^https?$/, error: `${HTTP_URL_FORM} (e.g. ${example})` });
}

function secret(name: string) {
  return z.string().trim().min(1, { error: `a non-empty ${name}` });
}

/**
 * The LLM variables, each checked on its own. Rules that join variables (a model for every provider but
 * offline, the key a provider needs) are in {@link llmConfigFromEnv}. The fields can be spread into a larger
 * env schema (`z.object({ ...other, ...llmEnvSchema.shape }).transform((env, ctx) => ({ llm: llmConfigFromEnv(env, ctx) }))`).
 */
export const llmEnvSchema = z.object({
  LLM_PROVIDER: z.enum(LLM_PROVIDERS, { error: `one of ${LLM_PROVIDERS.join(', ')}` }).default('offline'),
  LARGE_LANGUAGE_MODEL: z.string().trim().min(1, { error: 'a model name' }).optional(),
  OPENAI_API_KEY: secret('API key').optional(),
  OPENAI_BASE_URL: httpUrl('http://127.0.0.1:8000/v1').optional(),
  ANTHROPIC_API_KEY: secret('API key').optional(),
  OLLAMA_BASE_URL: httpUrl(DEFAULT_OLLAMA_BASE_URL).default(DEFAULT_OLLAMA_BASE_URL),
  LLM_TEMPERATURE: z
    .string()
    .regex(/^\d{1,2}(\.\d{1,6})?$/, { error: TEMPERATURE_FORM })
    .transform(Number)
    .pipe(z.number().max(2, { error: TEMPERATURE_FORM }))
    .optional(),
  LLM_TIMEOUT_MS: z
    .string()
    .regex(/^\d{1,9}$/, { error: TIMEOUT_FORM })
    .transform(Number)
    .pipe(z.number().int().min(1, { error: TIMEOUT_FORM }))
    .default(DEFAULT_LLM_TIMEOUT_MS),
});

export type LlmEnv = z.output<typeof llmEnvSchema>;
export type LlmVariable = keyof z.input<typeof llmEnvSchema>;

const MODEL_EXAMPLES: Record<Exclude<LlmProvider, 'offline'>, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  ollama: 'llama3.1',
  'openai-compatible': 'the name the server lists',
};

/**
 * Joins the checked variables into an {@link LlmConfig}. A missing variable is reported on `ctx` under its
 * own name (the issue path), so a caller that prints problems by path names the variable; then the
 * result is `z.NEVER`.
 */
export function llmConfigFromEnv(env: LlmEnv, ctx: z.core.$RefinementCtx): LlmConfig {
  const provider = env.LLM_PROVIDER;
  if (provider === 'offline') return { provider };

  let problems = 0;
  const required = <T>(variable: LlmVariable, value: T | undefined, expected: string): T => {
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', path: [variable], input: value, message: `${expected}, required when LLM_PROVIDER is ${provider}` });
      problems += 1;
    }
    return value as T;
  };

  const model = required('LARGE_LANGUAGE_MODEL', env.LARGE_LANGUAGE_MODEL, `a model name (e.g. ${MODEL_EXAMPLES[provider]})`);
  if (provider === 'anthropic' && env.LLM_TEMPERATURE !== undefined && env.LLM_TEMPERATURE > 1) {
    ctx.addIssue({ code: 'custom', path: ['LLM_TEMPERATURE'], input: env.LLM_TEMPERATURE, message: 'a number from 0 to 1 when LLM_PROVIDER is anthropic' });
    problems += 1;
  }
  const settings: ModelSettings = { model, temperature: env.LLM_TEMPERATURE, timeoutMs: env.LLM_TIMEOUT_MS };

  let config: LlmConfig;
  switch (provider) {
    case 'openai':
      config = { provider, apiKey: required('OPENAI_API_KEY', env.OPENAI_API_KEY, 'an API key'), baseUrl: env.OPENAI_BASE_URL, ...settings };
      break;
    case 'anthropic':
      config = { provider, apiKey: required('ANTHROPIC_API_KEY', env.ANTHROPIC_API_KEY, 'an API key'), ...settings };
      break;
    case 'ollama':
      config = { provider, baseUrl: env.OLLAMA_BASE_URL, ...settings };
      break;
    case 'openai-compatible':
      config = {
        provider,
        baseUrl: required('OPENAI_BASE_URL', env.OPENAI_BASE_URL, `the server's ${HTTP_URL_FORM} (e.g. http://127.0.0.1:8000/v1)`),
        apiKey: env.OPENAI_API_KEY,
        ...settings,
      };
      break;
  }
  return problems > 0 ? z.NEVER : config;
}
