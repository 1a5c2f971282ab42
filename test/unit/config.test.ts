import { expect } from 'chai';
import { ConfigError, loadConfig, type Config } from '../../scripts/config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const expected: Config = {
      nodeEnv: 'development',
      http: { host: '127.0.0.1', port: 8080, headersTimeoutMs: 10_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 },
      sse: { sendBufferCapBytes: 256 * 1024 },
      redis: { url: undefined, prefix: 'troupe', partitions: 16, localDataDir: '.troupe/redis', allowEviction: false },
      mongo: { uri: undefined, dbName: 'troupe', embedded: { port: 0, dbpath: '.troupe/mongo' }, outageRetryMs: 30_000 },
      log: { level: 'info', pretty: undefined },
      gateway: { bodyLimitBytes: 1024 * 1024, corsOrigins: [], metricsToken: undefined, traceHops: false },
      metrics: { port: null },
      takeover: { livenessTtlMs: 800, livenessRenewMs: 200, checkMs: 100 },
      worker: { residents: { memoryBytes: 64 * 1024 ** 2, idleMs: 300_000 } },
      heap: { growingPercent: 300 },
      limits: {
        defaults: { rate: { points: 300, durationSeconds: 60 }, concurrent: 20 },
        kinds: {},
        leaseTtlMs: 600_000,
      },
      agents: { mcpUrl: undefined, mcpHeader: undefined, gatewayUrl: 'http://127.0.0.1:8080' },
      llm: { provider: 'offline' },
      scouting: { embeddings: null, gateTimeoutMs: null },
      mail: {
        settings: { domain: 'troupe.local', transport: 'local', smtpUrl: null, allowDomains: [], blockDomains: [], sendPerMinute: 30, demoInbound: true },
        smtp: null,
        webhooks: { mailgunSigningKey: null, genericSecret: null },
      },
    };
    expect(loadConfig({})).to.deep.equal(expected);
  });

  it('reads how much of its actors a worker keeps resident (0: none), and for how long idle (0: no limit)', () => {
    expect(loadConfig({ RESIDENT_MEMORY: '256mb', RESIDENT_IDLE_SECONDS: '600' }).worker).to.deep.equal({ residents: { memoryBytes: 256 * 1024 ** 2, idleMs: 600_000 } });
    expect(loadConfig({ RESIDENT_MEMORY: '0', RESIDENT_IDLE_SECONDS: '0' }).worker).to.deep.equal({ residents: { memoryBytes: 0, idleMs: 0 } });
  });

  it('reads the embeddings provider and the scouting gate timeout, and never echoes the embeddings key', () => {
    const config = loadConfig({ EMBEDDINGS_PROVIDER: 'ollama', EMBEDDINGS_MODEL: 'nomic-embed-text', SCOUTING_GATE_TIMEOUT_SECONDS: '3600' });
    expect(config.scouting).to.deep.equal({
      embeddings: { provider: 'ollama', model: 'nomic-embed-text', baseUrl: 'http://127.0.0.1:11434', apiKey: undefined },
      gateTimeoutMs: 3_600_000,
    });
    expect(loadConfig({ EMBEDDINGS_PROVIDER: 'openai', OPENAI_API_KEY: 'k1' }).scouting.embeddings).to.deep.include({ provider: 'openai', apiKey: 'k1' });
    const error = configError({ EMBEDDINGS_PROVIDER: 'word2vec', SCOUTING_GATE_TIMEOUT_SECONDS: '-5', EMBEDDINGS_API_KEY: '' });
    expect(error.message).to.include('EMBEDDINGS_PROVIDER').and.include('SCOUTING_GATE_TIMEOUT_SECONDS');
  });

  it('reads where agents call MCP tools, and never echoes the header', () => {
    const config = loadConfig({ COACH_MCP_URL: 'https://mcp.example.com/mcp', COACH_MCP_HEADER: 'Authorization: Bearer s3cret', GATEWAY_URL: 'http://gateway:8080' });
    expect(config.agents).to.deep.equal({ mcpUrl: 'https://mcp.example.com/mcp', mcpHeader: { name: 'Authorization', value: 'Bearer s3cret' }, gatewayUrl: 'http://gateway:8080' });
    const error = configError({ COACH_MCP_HEADER: 'no colon s3cret', COACH_MCP_URL: 'ftp://x' });
    expect(error.message).to.include('COACH_MCP_HEADER').and.include('COACH_MCP_URL').and.not.include('s3cret');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '3000',
      HOST: '0.0.0.0',
      REDIS_URL: 'redis://:secret@redis.internal:6380/2',
      REDIS_PREFIX: 'prod-eu',
      REDIS_DATA_DIR: '/var/lib/troupe/redis',
      TROUPE_ALLOW_EVICTION: '1',
      MONGODB_URI: 'mongodb://mongo-1:27017,mongo-2:27017/?replicaSet=rs0',
      MONGODB_DB: 'troupe_prod',
      EMBEDDED_MONGO_PORT: '27018',
      EMBEDDED_MONGO_DBPATH: '/var/lib/troupe/mongo',
      STORE_OUTAGE_RETRY_SECONDS: '5',
      LOG_LEVEL: 'debug',
      LOG_PRETTY: 'false',
      BODY_LIMIT: '256kb',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      METRICS_TOKEN: 'a-long-metrics-token',
      TRACE_HOPS: 'true',
      METRICS_PORT: '9464',
      DEFAULT_RATE_POINTS: '100',
      DEFAULT_RATE_DURATION_SECONDS: '10',
      DEFAULT_CONCURRENT_TURNS: '5',
      LEASE_TTL_SECONDS: '30',
      KIND_LIMITS: 'scouting:rate=10/3600,concurrent=3;game:concurrent=none',
      LLM_PROVIDER: 'anthropic',
      LARGE_LANGUAGE_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-test-key',
      GATEWAY_URL: 'http://gateway:8080',
      COACH_MCP_URL: 'https://mcp.example.com/mcp',
      COACH_MCP_HEADER: 'X-Api-Key: k',
      EMBEDDINGS_PROVIDER: 'openai-compatible',
      EMBEDDINGS_BASE_URL: 'http://embed.internal/v1',
      EMBEDDINGS_MODEL: 'bge-small',
      SCOUTING_GATE_TIMEOUT_SECONDS: '86400',
      MAIL_DOMAIN: 'Mail.Example.com',
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: 'smtp://relay.internal:587',
      SMTP_PORT: '2525',
      SMTP_HOST: '0.0.0.0',
      MAIL_ALLOW_DOMAINS: 'example.com',
      MAIL_BLOCK_DOMAINS: ' Spam.test ',
      MAIL_SEND_PER_MINUTE: '5',
      MAILGUN_SIGNING_KEY: 'mg-key',
      MAIL_WEBHOOK_SECRET: 'a-generic-secret-of-16',
      LIVENESS_TTL_MS: '2000',
      LIVENESS_RENEW_MS: '500',
      TAKEOVER_CHECK_MS: '0',
      RESIDENT_MEMORY: '16mb',
      RESIDENT_IDLE_SECONDS: '30',
      HEAP_GROWING_PERCENT: '0',
      HTTP_HEADERS_TIMEOUT_SECONDS: '15',
      HTTP_REQUEST_TIMEOUT_SECONDS: '60',
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '65',
      SSE_SEND_BUFFER_CAP: '256kb',
    });
    expect(config).to.deep.equal({
      scouting: { embeddings: { provider: 'openai-compatible', model: 'bge-small', baseUrl: 'http://embed.internal/v1', apiKey: undefined }, gateTimeoutMs: 86_400_000 },
      mail: {
        settings: { domain: 'mail.example.com', transport: 'smtp', smtpUrl: 'smtp://relay.internal:587', allowDomains: ['example.com'], blockDomains: ['spam.test'], sendPerMinute: 5, demoInbound: false },
        smtp: { port: 2525, host: '0.0.0.0' },
        webhooks: { mailgunSigningKey: 'mg-key', genericSecret: 'a-generic-secret-of-16' },
      },
      agents: { mcpUrl: 'https://mcp.example.com/mcp', mcpHeader: { name: 'X-Api-Key', value: 'k' }, gatewayUrl: 'http://gateway:8080' },
      nodeEnv: 'production',
      http: { host: '0.0.0.0', port: 3000, headersTimeoutMs: 15_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 65_000 },
      sse: { sendBufferCapBytes: 256 * 1024 },
      redis: { url: 'redis://:secret@redis.internal:6380/2', prefix: 'prod-eu', partitions: 16, localDataDir: '/var/lib/troupe/redis', allowEviction: true },
      mongo: {
        uri: 'mongodb://mongo-1:27017,mongo-2:27017/?replicaSet=rs0',
        dbName: 'troupe_prod',
        embedded: { port: 27018, dbpath: '/var/lib/troupe/mongo' },
        outageRetryMs: 5_000,
      },
      log: { level: 'debug', pretty: false },
      gateway: {
        bodyLimitBytes: 256 * 1024,
        corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
        metricsToken: 'a-long-metrics-token',
        traceHops: true,
      },
      metrics: { port: 9464 },
      takeover: { livenessTtlMs: 2_000, livenessRenewMs: 500, checkMs: 0 },
      worker: { residents: { memoryBytes: 16 * 1024 ** 2, idleMs: 30_000 } },
      heap: { growingPercent: 0 },
      limits: {
        defaults: { rate: { points: 100, durationSeconds: 10 }, concurrent: 5 },
        kinds: { scouting: { rate: { points: 10, durationSeconds: 3600 }, concurrent: 3 }, game: { concurrent: null } },
        leaseTtlMs: 30_000,
      },
      llm: { provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test-key', temperature: undefined, timeoutMs: 60_000 },
    });
  });

  it('treats an empty value as unset', () => {
    const config = loadConfig({ PORT: '', REDIS_URL: '', LOG_PRETTY: '' });
    expect(config.http.port).to.equal(8080);
    expect(config.redis.url).to.equal(undefined);
    expect(config.log.pretty).to.equal(undefined);
  });

  it('accepts the usual spellings of a boolean for LOG_PRETTY', () => {
    for (const value of ['true', '1', 'yes', 'on']) expect(loadConfig({ LOG_PRETTY: value }).log.pretty, value).to.equal(true);
    for (const value of ['false', '0', 'no', 'off']) expect(loadConfig({ LOG_PRETTY: value }).log.pretty, value).to.equal(false);
  });

  it('accepts rediss:// and mongodb+srv:// URLs', () => {
    const config = loadConfig({ REDIS_URL: 'rediss://cache.example:6380', MONGODB_URI: 'mongodb+srv://cluster0.example.net/' });
    expect(config.redis.url).to.equal('rediss://cache.example:6380');
    expect(config.mongo.uri).to.equal('mongodb+srv://cluster0.example.net/');
  });

  it('reads a Redis Cluster from REDIS_URL or REDIS_CLUSTER_NODES, and the partition count', () => {
    const fromUrl = loadConfig({ REDIS_URL: 'redis+cluster://:secret@10.0.0.1:7000,10.0.0.2:7001', REDIS_PARTITIONS: '64' });
    expect(fromUrl.redis).to.include({ url: 'redis+cluster://:secret@10.0.0.1:7000,10.0.0.2:7001', partitions: 64 });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001' }).redis.url).to.equal('redis+cluster://10.0.0.1:7000,10.0.0.2:7001');
    expect(() => loadConfig({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).to.throw(/REDIS_CLUSTER_NODES.*either REDIS_URL or REDIS_CLUSTER_NODES/s);
  });

  const badValues: Array<[variable: string, value: string, expected: string]> = [
    ['NODE_ENV', 'prod', 'one of development, production, test'],
    ['PORT', 'abc', 'an integer 0-65535'],
    ['PORT', '65536', 'an integer 0-65535'],
    ['PORT', '80.5', 'an integer 0-65535'],
    ['PORT', '-1', 'an integer 0-65535'],
    ['HOST', '   ', 'a host name or IP address'],
    ['REDIS_URL', 'localhost:6379', 'a redis:// or rediss:// URL'],
    ['REDIS_URL', 'http://localhost:6379', 'a redis:// or rediss:// URL'],
    ['REDIS_URL', 'redis+cluster://h1:70000', 'a redis:// or rediss:// URL'],
    ['REDIS_URL', 'redis+cluster://h1:7000/3', 'a redis:// or rediss:// URL'],
    ['REDIS_CLUSTER_NODES', 'h1,h2', 'host:port of each seed node'],
    ['REDIS_PARTITIONS', '0', 'a positive integer'],
    ['REDIS_PARTITIONS', '5000', 'at most 1024'],
    ['REDIS_PREFIX', 'bad prefix!', 'a key prefix'],
    ['TROUPE_ALLOW_EVICTION', 'sometimes', 'a boolean'],
    ['MONGODB_URI', 'postgres://localhost/troupe', 'a mongodb:// or mongodb+srv:// connection string'],
    ['MONGODB_URI', 'mongodb://', 'a mongodb:// or mongodb+srv:// connection string'],
    ['MONGODB_DB', 'troupe.prod', 'a MongoDB database name'],
    ['MONGODB_DB', 'a'.repeat(64), 'a MongoDB database name'],
    ['EMBEDDED_MONGO_PORT', '99999', 'an integer 0-65535'],
    ['STORE_OUTAGE_RETRY_SECONDS', '0', 'a whole number of seconds from 1 to 3600'],
    ['STORE_OUTAGE_RETRY_SECONDS', '1.5', 'a whole number of seconds from 1 to 3600'],
    ['STORE_OUTAGE_RETRY_SECONDS', '7200', 'a whole number of seconds from 1 to 3600'],
    ['METRICS_PORT', '9464x', 'an integer 0-65535'],
    ['RESIDENT_MEMORY', '-1', 'a size such as 512kb, 1mb or 1048576 (bytes; units b, kb, mb, gb), at least 1kb and at most 1gb, or 0'],
    ['RESIDENT_MEMORY', 'lots', 'a size such as 512kb, 1mb or 1048576 (bytes; units b, kb, mb, gb), at least 1kb and at most 1gb, or 0'],
    ['RESIDENT_MEMORY', '2gb', 'a size such as 512kb, 1mb or 1048576 (bytes; units b, kb, mb, gb), at least 1kb and at most 1gb, or 0'],
    ['RESIDENT_IDLE_SECONDS', '-1', 'a whole number of seconds, 0 to 86400'],
    ['RESIDENT_IDLE_SECONDS', '2.5', 'a whole number of seconds, 0 to 86400'],
    ['RESIDENT_IDLE_SECONDS', '100000', 'a whole number of seconds, 0 to 86400'],
    ['HEAP_GROWING_PERCENT', '-1', 'a whole number of percent, 0 to 1000'],
    ['HEAP_GROWING_PERCENT', '150.5', 'a whole number of percent, 0 to 1000'],
    ['HEAP_GROWING_PERCENT', 'fast', 'a whole number of percent, 0 to 1000'],
    ['HEAP_GROWING_PERCENT', '5000', 'a whole number of percent, 0 to 1000'],
    ['LOG_LEVEL', 'verbose', 'one of fatal, error, warn, info, debug, trace, silent'],
    ['LOG_PRETTY', 'maybe', 'a boolean'],
    ['BODY_LIMIT', 'huge', 'a size such as 512kb, 1mb or 1048576'],
    ['BODY_LIMIT', '2gb', 'a size such as 512kb, 1mb or 1048576'],
    ['BODY_LIMIT', '10', 'a size such as 512kb, 1mb or 1048576'],
    ['CORS_ORIGINS', 'example.com', '"*" or a comma-separated list of origins'],
    ['CORS_ORIGINS', 'https://app.example.com/path', '"*" or a comma-separated list of origins'],
    ['DEFAULT_RATE_POINTS', '0', 'a positive integer'],
    ['DEFAULT_RATE_DURATION_SECONDS', '1.5', 'a positive integer'],
    ['DEFAULT_CONCURRENT_TURNS', '-3', 'a positive integer'],
    ['LEASE_TTL_SECONDS', 'ten', 'a positive integer'],
    ['KIND_LIMITS', 'scouting', 'KIND:rate=POINTS/SECONDS,concurrent=N entries separated by ";"'],
    ['KIND_LIMITS', 'scouting:rate=10', 'KIND:rate=POINTS/SECONDS,concurrent=N entries separated by ";"'],
    ['KIND_LIMITS', 'scouting:speed=3', 'KIND:rate=POINTS/SECONDS,concurrent=N entries separated by ";"'],
  ];
  for (const [variable, value, expected] of badValues) {
    it(`rejects ${variable}=${JSON.stringify(value)} naming ${variable} and the expected form`, () => {
      const error = configError({ [variable]: value });
      expect(error.problems.map((p) => p.variable)).to.deep.equal([variable]);
      expect(error.message).to.include(`${variable} must be ${expected}`);
      expect(error.message).to.include(`(got ${JSON.stringify(value)})`);
    });
  }

  it('names the exact form for a bad PORT', () => {
    expect(configError({ PORT: 'abc' }).message).to.include('PORT must be an integer 0-65535 (got "abc")');
  });

  it('refuses a liveness renewal slower than a third of its TTL', () => {
    expect(configError({ LIVENESS_TTL_MS: '1000', LIVENESS_RENEW_MS: '400' }).message).to.include('LIVENESS_RENEW_MS must be at most a third of LIVENESS_TTL_MS (1000) (got "400")');
    expect(configError({ LIVENESS_TTL_MS: '100' }).message).to.include('LIVENESS_TTL_MS must be a whole number of milliseconds from 300 to 60000');
  });

  it('refuses headers that may take longer than the whole request, and a send buffer cap below 1kb', () => {
    expect(configError({ HTTP_HEADERS_TIMEOUT_SECONDS: '30', HTTP_REQUEST_TIMEOUT_SECONDS: '20' }).message).to.include('HTTP_HEADERS_TIMEOUT_SECONDS must be at most HTTP_REQUEST_TIMEOUT_SECONDS (20) (got "30")');
    expect(configError({ SSE_SEND_BUFFER_CAP: '10b' }).message).to.include('SSE_SEND_BUFFER_CAP must be a size such as 512kb');
  });

  it('reports every bad variable at once', () => {
    const error = configError({ PORT: 'x', LOG_LEVEL: 'loud', MONGODB_DB: 'a/b' });
    expect(error.problems.map((p) => p.variable)).to.have.members(['PORT', 'LOG_LEVEL', 'MONGODB_DB']);
  });

  it('masks credentials of a bad URL in the message', () => {
    const error = configError({ REDIS_URL: 'http://admin:hunter2@cache:6379', MONGODB_URI: 'mysql://root:pw123@db/x' });
    expect(error.message).to.not.include('hunter2');
    expect(error.message).to.not.include('pw123');
    expect(error.message).to.include('REDIS_URL must be');
    expect(error.message).to.include('MONGODB_URI must be');
  });

  it('explains which KIND_LIMITS entry is wrong', () => {
    expect(configError({ KIND_LIMITS: 'scouting:rate=10' }).message).to.include('scouting rate "10" is not POINTS/SECONDS');
    expect(configError({ KIND_LIMITS: 'game:concurrent=0' }).message).to.include('game concurrent "0" is not a positive integer');
    expect(configError({ KIND_LIMITS: 'Game:concurrent=2' }).message).to.include('"Game" is not an actor kind name');
    expect(configError({ KIND_LIMITS: 'game:concurrent=2;game:concurrent=3' }).message).to.include('kind "game" appears twice');
    expect(configError({ KIND_LIMITS: 'game:concurrent=2,concurrent=3' }).message).to.include('game sets concurrent twice');
  });

  it('accepts "none", spaces and a trailing ";" in KIND_LIMITS', () => {
    expect(loadConfig({ KIND_LIMITS: ' scouting : rate = none , concurrent = 4 ; ' }).limits.kinds).to.deep.equal({
      scouting: { rate: null, concurrent: 4 },
    });
  });

  it('reads CORS_ORIGINS=* and BODY_LIMIT in plain bytes', () => {
    const config = loadConfig({ CORS_ORIGINS: '*', BODY_LIMIT: '2048' });
    expect(config.gateway.corsOrigins).to.equal('*');
    expect(config.gateway.bodyLimitBytes).to.equal(2048);
  });

  it('never echoes a bad METRICS_TOKEN', () => {
    const error = configError({ METRICS_TOKEN: 'short' });
    expect(error.message).to.include('METRICS_TOKEN must be a token of at least 16 characters (got "***")');
    expect(error.message).to.not.include('short"');
  });

  it('ignores variables it does not know', () => {
    expect(() => loadConfig({ TROUPE_SOMETHING_ELSE: 'x', PATH: '/usr/bin' })).to.not.throw();
  });
});
