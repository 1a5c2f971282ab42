import { z } from 'zod';
import { EMBEDDINGS_PROVIDERS } from '../actors/documents/embeddings.js';
import { DEFAULT_TAKEOVER_SETTINGS } from '../actors/runtime/liveness.js';
import { DEFAULT_RESIDENT_IDLE_MS, DEFAULT_RESIDENT_MEMORY_BYTES } from '../actors/runtime/residents.js';
import { LLM_SECRET_VARIABLES, LLM_URL_VARIABLES, llmConfigFromEnv, llmEnvSchema } from '../actors/llm/config.js';
import { kindLimitsVariable } from '../gateway/kind-limits.js';
import { DEFAULT_SEND_BUFFER_CAP_BYTES } from '../gateway/send-buffer-cap.js';
import { LOG_LEVELS, type LogLevel } from '../logging/logger.js';
import { maskUrlCredentials } from '../logging/mask-url-credentials.js';
import { DEFAULT_PARTITIONS, MAX_PARTITIONS } from '../queues/keys.js';
import { clusterUrl, isClusterUrl, redisTarget } from '../queues/redis-client.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from './heap-growth.js';


const NODE_ENVS = ['development', 'production', 'test'] as const;

const PORT_FORM = 'an integer 0-65535';

function portNumber() {
  return z
    .string()
    .regex(/^\d{1,5}$/, { error: PORT_FORM })
    .transform(Number)
    .pipe(z.number().int().min(0, { error: PORT_FORM }).max(65535, { error: PORT_FORM }));
}

const POSITIVE_INTEGER_FORM = 'a positive integer';

function positiveInteger() {
  return z
    .string()
    .regex(/^\d{1,9}$/, { error: POSITIVE_INTEGER_FORM })
    .transform(Number)
    .pipe(z.number().int().min(1, { error: POSITIVE_INTEGER_FORM }));
}

/** Whole milliseconds within [min, max]. */
function milliseconds(min: number, max: number) {
  const form = `a whole number of milliseconds from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,9}$/, { error: form })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: form }).max(max, { error: form }));
}

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const BYTE_SIZE_FORM = 'a size such as 512kb, 1mb or 1048576 (bytes; units b, kb, mb, gb), at least 1kb and at most 1gb';

/** "1mb" -> 1048576, the notation the `bytes` package (used by co-body) reads, parsed here to validate it up front. */
function byteSize(zero?: string) {
  const form = zero ? `${BYTE_SIZE_FORM}, or 0 ${zero}` : BYTE_SIZE_FORM;
  return z
    .string()
    .trim()
    .regex(/^\d{1,10}\s*(b|kb|mb|gb)?$/i, { error: form })
    .transform((text) => {
      const [, digits, unit] = /^(\d+)\s*([a-z]*)$/i.exec(text)!;
      return Number(digits) * BYTE_UNITS[(unit || 'b').toLowerCase()]!;
    })
    .pipe(z.number().refine((n) => (zero !== undefined && n === 0) || (n >= 1024 && n <= 1024 ** 3), { error: form }));
}

const HEAP_GROWING_FORM = 'a whole number of percent, 0 to 1000 (0: V8 decides how far the heap grows)';
const RESIDENT_IDLE_FORM = 'a whole number of seconds, 0 to 86400 (0: never drop an actor for idleness)';

const CORS_ORIGINS_FORM = '"*" or a comma-separated list of origins such as https://app.example.com,http://localhost:5173';

/** "*" or exact origins (scheme://host[:port], no path), compared verbatim with the request's Origin. */
function corsOrigins() {
  return z.string().transform((text, ctx): '*' | string[] => {
    const trimmed = text.trim();
    if (trimmed === '*') return '*';
    const origins = trimmed.split(',').map((o) => o.trim()).filter((o) => o !== '');
    for (const origin of origins) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = undefined;
      }
      if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
        ctx.addIssue({ code: 'custom', message: `${CORS_ORIGINS_FORM}; "${origin}" is not an origin` });
        return z.NEVER;
      }
    }
    return origins;
  });
}

const STORE_OUTAGE_RETRY_FORM = 'a whole number of seconds from 1 to 3600';

// MongoDB database names may not contain these characters (and must be short).
const MONGODB_DB_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

/**
 * Every environment variable troupe reads, in one schema. Values arrive as strings; an empty
 * string counts as unset so that `REDIS_URL=` in a shell or compose file means "use the default".
 */
/** One Redis server's URL, or a cluster's (see queues/redis-client.ts). */
function isRedisUrl(value: string): boolean {
  try {
    if (isClusterUrl(value)) return redisTarget(value).kind === 'cluster';
    return /^rediss?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A comma-separated list of domains, lowercased; empty when unset. */
const domainList = (value: string | undefined): string[] => (value ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);

export const configSchema = z
  .object({
    NODE_ENV: z.enum(NODE_ENVS, { error: `one of ${NODE_ENVS.join(', ')}` }).default('development'),
    PORT: portNumber().default(8080),
    HOST: z.string().trim().min(1, { error: 'a host name or IP address' }).default('127.0.0.1'),
    REDIS_URL: z
      .string()
      .refine(isRedisUrl, { error: 'a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379), or redis+cluster://host:port,host:port,… for a Redis Cluster' })
      .optional(),
    REDIS_CLUSTER_NODES: z
      .string()
      .regex(/^[^\s,:/@]+:\d{1,5}(,[^\s,:/@]+:\d{1,5})*$/, { error: 'host:port of each seed node, comma-separated (e.g. 10.0.0.1:7000,10.0.0.2:7000)' })
      .optional(),
    REDIS_PARTITIONS: positiveInteger()
      .pipe(z.number().max(MAX_PARTITIONS, { error: `at most ${MAX_PARTITIONS}` }))
      .default(DEFAULT_PARTITIONS),
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: 'a key prefix of 1-40 letters, digits, _ . or -' })
      .default('troupe'),
    REDIS_DATA_DIR: z.string().min(1, { error: 'a directory path' }).default('.troupe/redis'),
    TROUPE_ALLOW_EVICTION: z.stringbool({ error: 'a boolean (true/false, 1/0, yes/no, on/off)' }).default(false),
    MONGODB_URI: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\/[^/?#]+/, {
        error: 'a mongodb:// or mongodb+srv:// connection string (e.g. mongodb://127.0.0.1:27017/?replicaSet=rs0)',
      })
      .optional(),
    MONGODB_DB: z
      .string()
      .regex(MONGODB_DB_NAME, { error: 'a MongoDB database name (1-63 characters, none of /\\. "$*<>:|?)' })
      .default('troupe'),
    EMBEDDED_MONGO_PORT: portNumber().default(0),
    EMBEDDED_MONGO_DBPATH: z.string().min(1, { error: 'a directory path' }).default('.troupe/mongo'),
    STORE_OUTAGE_RETRY_SECONDS: z
      .string()
      .regex(/^\d{1,4}$/, { error: STORE_OUTAGE_RETRY_FORM })
      .transform(Number)
      .pipe(z.number().int().min(1, { error: STORE_OUTAGE_RETRY_FORM }).max(3600, { error: STORE_OUTAGE_RETRY_FORM }))
      .default(30),
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    LOG_PRETTY: z
      .stringbool({ error: 'a boolean (true/false, 1/0, yes/no, on/off)' })
      .optional(),
    TRACE_HOPS: z.stringbool({ error: 'a boolean (true/false, 1/0, yes/no, on/off)' }).default(false),
    BODY_LIMIT: byteSize().default(1024 ** 2),
    CORS_ORIGINS: corsOrigins().optional(),
    METRICS_TOKEN: z.string().min(16, { error: 'a token of at least 16 characters' }).optional(),
    METRICS_PORT: portNumber().optional(),
    DEFAULT_RATE_POINTS: positiveInteger().default(300),
    DEFAULT_RATE_DURATION_SECONDS: positiveInteger().default(60),
    DEFAULT_CONCURRENT_TURNS: positiveInteger().default(20),
    LEASE_TTL_SECONDS: positiveInteger().default(600),
    KIND_LIMITS: kindLimitsVariable().optional(),
    GATEWAY_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL of a gateway (e.g. http://gateway:8080)' }).optional(),
    COACH_MCP_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL of an MCP server (e.g. https://mcp.example.com/mcp)' }).optional(),
    COACH_MCP_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,100}:\s*\S.*$/, { error: 'a header as "Name: value" (e.g. "Authorization: Bearer abc")' })
      .transform((text) => {
        const at = text.indexOf(':');
        return { name: text.slice(0, at), value: text.slice(at + 1).trim() };
      })
      .optional(),
    EMBEDDINGS_PROVIDER: z.enum(['none', ...EMBEDDINGS_PROVIDERS], { error: `one of none, ${EMBEDDINGS_PROVIDERS.join(', ')}` }).default('none'),
    EMBEDDINGS_MODEL: z.string().trim().min(1, { error: 'an embeddings model name' }).optional(),
    EMBEDDINGS_BASE_URL: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL of the embeddings API (e.g. http://127.0.0.1:11434)' }).optional(),
    EMBEDDINGS_API_KEY: z.string().trim().min(1, { error: 'a non-empty API key' }).optional(),
    MAIL_DOMAIN: z.string().trim().toLowerCase().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, { error: 'a domain name (e.g. mail.example.com)' }).default('troupe.local'),
    MAIL_TRANSPORT: z.enum(['local', 'smtp'], { error: 'local or smtp' }).default('local'),
    SMTP_URL: z.string().regex(/^smtps?:\/\/.+/, { error: 'an smtp:// or smtps:// URL (e.g. smtp://user:pass@smtp.example.com:587)' }).optional(),
    SMTP_PORT: portNumber().optional(),
    SMTP_HOST: z.string().trim().min(1).default('127.0.0.1'),
    MAIL_ALLOW_DOMAINS: z.string().optional(),
    MAIL_BLOCK_DOMAINS: z.string().optional(),
    MAIL_SEND_PER_MINUTE: z.coerce.number({ error: 'a positive whole number' }).int().min(1).default(30),
    MAILGUN_SIGNING_KEY: z.string().trim().min(1).optional(),
    MAIL_WEBHOOK_SECRET: z.string().trim().min(16, { error: 'a secret of at least 16 characters' }).optional(),
    LIVENESS_TTL_MS: milliseconds(300, 60_000).default(DEFAULT_TAKEOVER_SETTINGS.livenessTtlMs),
    LIVENESS_RENEW_MS: milliseconds(50, 20_000).default(DEFAULT_TAKEOVER_SETTINGS.livenessRenewMs),
    TAKEOVER_CHECK_MS: milliseconds(0, 60_000).default(DEFAULT_TAKEOVER_SETTINGS.checkMs),
    RESIDENT_MEMORY: byteSize('to keep no actor resident').default(DEFAULT_RESIDENT_MEMORY_BYTES),
    RESIDENT_IDLE_SECONDS: z.coerce
      .number({ error: RESIDENT_IDLE_FORM })
      .int({ error: RESIDENT_IDLE_FORM })
      .min(0, { error: RESIDENT_IDLE_FORM })
      .max(86_400, { error: RESIDENT_IDLE_FORM })
      .default(DEFAULT_RESIDENT_IDLE_MS / 1000),
    HEAP_GROWING_PERCENT: z.coerce
      .number({ error: HEAP_GROWING_FORM })
      .int({ error: HEAP_GROWING_FORM })
      .min(0, { error: HEAP_GROWING_FORM })
      .max(1000, { error: HEAP_GROWING_FORM })
      .default(DEFAULT_HEAP_GROWING_PERCENT),
    SCOUTING_GATE_TIMEOUT_SECONDS: z.coerce.number({ error: 'a whole number of seconds (0: wait forever)' }).int().min(0).default(0),
    HTTP_HEADERS_TIMEOUT_SECONDS: positiveInteger().default(10),
    HTTP_REQUEST_TIMEOUT_SECONDS: positiveInteger().default(120),
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: positiveInteger().default(5),
    SSE_SEND_BUFFER_CAP: byteSize().default(DEFAULT_SEND_BUFFER_CAP_BYTES),
    ...llmEnvSchema.shape,
  })
  .superRefine((env, ctx) => {
    // Node refuses a server whose headers may take longer than the whole request.
    if (env.HTTP_HEADERS_TIMEOUT_SECONDS > env.HTTP_REQUEST_TIMEOUT_SECONDS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_SECONDS'], input: env.HTTP_HEADERS_TIMEOUT_SECONDS, message: `at most HTTP_REQUEST_TIMEOUT_SECONDS (${env.HTTP_REQUEST_TIMEOUT_SECONDS})` });
    }
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_URL !== undefined && env.REDIS_CLUSTER_NODES !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER_NODES'], input: env.REDIS_CLUSTER_NODES, message: 'set either REDIS_URL or REDIS_CLUSTER_NODES, not both' });
    }
  })
  .superRefine((env, ctx) => {
    // Three renewals per TTL: one late or lost renewal must not let a live worker's key lapse.
    if (env.LIVENESS_RENEW_MS * 3 > env.LIVENESS_TTL_MS) {
      ctx.addIssue({ code: 'custom', path: ['LIVENESS_RENEW_MS'], input: env.LIVENESS_RENEW_MS, message: `at most a third of LIVENESS_TTL_MS (${env.LIVENESS_TTL_MS})` });
    }
  })
  .transform((env, ctx) => ({
    nodeEnv: env.NODE_ENV,
    /** The HTTP timeouts cut off clients that trickle a request (slowloris) or idle on a keep-alive connection. */
    http: {
      host: env.HOST,
      port: env.PORT,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    /** SSE_SEND_BUFFER_CAP: what an SSE response may hold for a client that does not read before it is dropped. */
    sse: { sendBufferCapBytes: env.SSE_SEND_BUFFER_CAP },
    /** localDataDir: where a redis-server troupe spawns keeps its AOF; allowEviction: warn instead of refusing a Redis that may evict keys. */
    /** partitions: how actors are spread over hash tags (a Redis Cluster's slots); every process of a deployment must agree. */
    redis: {
      url: env.REDIS_URL ?? (env.REDIS_CLUSTER_NODES === undefined ? undefined : clusterUrl(env.REDIS_CLUSTER_NODES)),
      prefix: env.REDIS_PREFIX,
      partitions: env.REDIS_PARTITIONS,
      localDataDir: env.REDIS_DATA_DIR,
      allowEviction: env.TROUPE_ALLOW_EVICTION,
    },
    mongo: {
      uri: env.MONGODB_URI,
      dbName: env.MONGODB_DB,
      embedded: { port: env.EMBEDDED_MONGO_PORT, dbpath: env.EMBEDDED_MONGO_DBPATH },
      /** How long workers retry turns while MongoDB is out of reach before clients hear store_unavailable. */
      outageRetryMs: env.STORE_OUTAGE_RETRY_SECONDS * 1000,
    },
    log: { level: env.LOG_LEVEL as LogLevel, pretty: env.LOG_PRETTY },
    gateway: {
      bodyLimitBytes: env.BODY_LIMIT,
      /** Empty: no CORS headers (same-origin clients only). */
      corsOrigins: env.CORS_ORIGINS ?? [],
      metricsToken: env.METRICS_TOKEN,
      /** TRACE_HOPS: stamp each message at every hop and log its path when the reply comes back. */
      traceHops: env.TRACE_HOPS,
    },
    /** METRICS_PORT: `troupe worker` serves GET /metrics there (on HOST, with METRICS_TOKEN); null: no endpoint. */
    metrics: { port: env.METRICS_PORT ?? null },
    /**
     * Fast takeover after a worker crash: each worker process renews a liveness key (LIVENESS_TTL_MS)
     * every LIVENESS_RENEW_MS from a thread of its own, and looks for lapsed ones every
     * TAKEOVER_CHECK_MS (0: this process takes nothing over; BullMQ's stalled check still does).
     */
    takeover: { livenessTtlMs: env.LIVENESS_TTL_MS, livenessRenewMs: env.LIVENESS_RENEW_MS, checkMs: env.TAKEOVER_CHECK_MS },
    /**
     * RESIDENT_MEMORY and RESIDENT_IDLE_SECONDS: how much a worker keeps of the actors as it last committed
     * them (so their next drain there needs no fence), and for how long an idle one is kept.
     */
    worker: { residents: { memoryBytes: env.RESIDENT_MEMORY, idleMs: env.RESIDENT_IDLE_SECONDS * 1000 } },
    /** HEAP_GROWING_PERCENT: how far a server process's old generation may grow past what survived its last mark-compact (0: V8's own policy). */
    heap: { growingPercent: env.HEAP_GROWING_PERCENT },
    limits: {
      defaults: {
        rate: { points: env.DEFAULT_RATE_POINTS, durationSeconds: env.DEFAULT_RATE_DURATION_SECONDS },
        concurrent: env.DEFAULT_CONCURRENT_TURNS,
      },
      kinds: env.KIND_LIMITS ?? {},
      leaseTtlMs: env.LEASE_TTL_SECONDS * 1000,
    },
    /**
     * Where agents call MCP tools: COACH_MCP_URL (with COACH_MCP_HEADER), or troupe's own /mcp at
     * GATEWAY_URL (default: this machine's PORT; `troupe start` uses its own gateway).
     */
    agents: { mcpUrl: env.COACH_MCP_URL, mcpHeader: env.COACH_MCP_HEADER, gatewayUrl: env.GATEWAY_URL ?? `http://127.0.0.1:${env.PORT === 0 ? 8080 : env.PORT}` },
    /** LLM_PROVIDER and friends: the one language-model configuration agents and tools share. */
    llm: llmConfigFromEnv(env, ctx),
    mail: {
      settings: {
        domain: env.MAIL_DOMAIN,
        transport: env.MAIL_TRANSPORT,
        smtpUrl: env.SMTP_URL ?? null,
        allowDomains: domainList(env.MAIL_ALLOW_DOMAINS),
        blockDomains: domainList(env.MAIL_BLOCK_DOMAINS),
        sendPerMinute: env.MAIL_SEND_PER_MINUTE,
        demoInbound: env.NODE_ENV !== 'production',
      },
      /** SMTP_PORT: troupe start (and troupe smtp) receive mail there. */
      smtp: env.SMTP_PORT === undefined ? null : { port: env.SMTP_PORT, host: env.SMTP_HOST },
      webhooks: { mailgunSigningKey: env.MAILGUN_SIGNING_KEY ?? null, genericSecret: env.MAIL_WEBHOOK_SECRET ?? null },
    },
    scouting: {
      /** EMBEDDINGS_PROVIDER: vector search beside BM25 (none: BM25 only). OpenAI takes OPENAI_API_KEY unless EMBEDDINGS_API_KEY is set. */
      embeddings:
        env.EMBEDDINGS_PROVIDER === 'none'
          ? null
          : {
              provider: env.EMBEDDINGS_PROVIDER,
              model: env.EMBEDDINGS_MODEL,
              baseUrl: env.EMBEDDINGS_BASE_URL ?? (env.EMBEDDINGS_PROVIDER === 'ollama' ? env.OLLAMA_BASE_URL : env.EMBEDDINGS_PROVIDER === 'openai-compatible' ? env.OPENAI_BASE_URL : undefined),
              apiKey: env.EMBEDDINGS_API_KEY ?? env.OPENAI_API_KEY,
            },
      /** How long a run waits at a gate before it expires; null: forever (the spec's default). */
      gateTimeoutMs: env.SCOUTING_GATE_TIMEOUT_SECONDS === 0 ? null : env.SCOUTING_GATE_TIMEOUT_SECONDS * 1000,
    },
  }));

export type Config = z.output<typeof configSchema>;
export type ConfigVariable = keyof z.input<typeof configSchema>;

const SECRET_BEARING: ReadonlySet<string> = new Set(['SMTP_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'MONGODB_URI', 'GATEWAY_URL', 'COACH_MCP_URL', 'EMBEDDINGS_BASE_URL', ...LLM_URL_VARIABLES]);
/** Variables that are secrets as a whole: never echoed, even when invalid. */
const SECRET: ReadonlySet<string> = new Set(['METRICS_TOKEN', 'COACH_MCP_HEADER', 'EMBEDDINGS_API_KEY', 'MAILGUN_SIGNING_KEY', 'MAIL_WEBHOOK_SECRET', ...LLM_SECRET_VARIABLES]);

export interface ConfigProblem {
  variable: string;
  expected: string;
  received: string | undefined;
}

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.variable} must be ${p.expected} (got ${JSON.stringify(p.received)})`);
    super(`invalid configuration:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const variable of Object.keys(configSchema.in.shape)) {
    const value = env[variable];
    if (value !== undefined && value !== '') input[variable] = value;
  }

  const result = configSchema.safeParse(input);
  if (result.success) return result.data;

  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const issue of result.error.issues) {
    const variable = String(issue.path[0] ?? '(unknown)');
    if (seen.has(variable)) continue;
    seen.add(variable);
    const raw = input[variable];
    problems.push({
      variable,
      expected: issue.message,
      received: raw === undefined ? raw : SECRET.has(variable) ? '***' : SECRET_BEARING.has(variable) ? maskUrlCredentials(raw) : raw,
    });
  }
  throw new ConfigError(problems);
}
