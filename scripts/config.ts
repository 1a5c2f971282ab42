import { z } from 'zod';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const NODE_ENVS = ['development', 'production', 'test'] as const;

const PORT_FORM = 'an integer 0-65535';

function portNumber() {
  return z
    .string()
    .regex(/^\d{1,5}$/, { error: PORT_FORM })
    .transform(Number)
    .pipe(z.number().int().min(0, { error: PORT_FORM }).max(65535, { error: PORT_FORM }));
}

// MongoDB database names may not contain these characters (and must be short).
const MONGODB_DB_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

/**
 * Every environment variable troupe reads, in one schema. Values arrive as strings; an empty
 * string counts as unset so that `REDIS_URL=` in a shell or compose file means "use the default".
 */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(NODE_ENVS, { error: `one of ${NODE_ENVS.join(', ')}` }).default('development'),
    PORT: portNumber().default(8080),
    HOST: z.string().trim().min(1, { error: 'a host name or IP address' }).default('127.0.0.1'),
    REDIS_URL: z
      .url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379)' })
      .optional(),
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
    LOG_LEVEL: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    LOG_PRETTY: z
      .stringbool({ error: 'a boolean (true/false, 1/0, yes/no, on/off)' })
      .optional(),
  })
  .transform((env) => ({
    nodeEnv: env.NODE_ENV,
    http: { host: env.HOST, port: env.PORT },
    redis: { url: env.REDIS_URL },
    mongo: {
      uri: env.MONGODB_URI,
      dbName: env.MONGODB_DB,
      embedded: { port: env.EMBEDDED_MONGO_PORT, dbpath: env.EMBEDDED_MONGO_DBPATH },
    },
    log: { level: env.LOG_LEVEL as LogLevel, pretty: env.LOG_PRETTY },
  }));

export type Config = z.output<typeof configSchema>;
export type ConfigVariable = keyof z.input<typeof configSchema>;

const SECRET_BEARING: ReadonlySet<string> = new Set(['REDIS_URL', 'MONGODB_URI']);

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

/** Masks `user:password@` in a URL-like string so it can be printed. */
export function maskUrlCredentials(value: string): string {
  return value.replace(/(\/\/)[^/@]*@/, '$1***@');
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
      received: raw !== undefined && SECRET_BEARING.has(variable) ? maskUrlCredentials(raw) : raw,
    });
  }
  throw new ConfigError(problems);
}
