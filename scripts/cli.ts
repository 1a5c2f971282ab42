import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { MongoUnavailableError } from '../models/mongo-unavailable-error.js';
import { RedisMisconfiguredError } from '../queues/redis-misconfigured-error.js';
import { RedisUnavailableError } from '../queues/redis-unavailable-error.js';
import packageJson from '../package.json' with { type: 'json' };
import { FAULTS, type FaultName } from './bench/fault-names.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { applyHeapGrowingPercent } from './heap-growth.js';

/** Errors whose message is the whole story: printed alone, without a stack trace. */
function isStartupError(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof RedisUnavailableError || error instanceof RedisMisconfiguredError || error instanceof MongoUnavailableError;
}

/** A count option (benchmark sizes): a positive integer, checked with zod like every other input. */
const Count = z.coerce.number().int().positive().max(10_000_000);
function countOption(value: string): number {
  const parsed = Count.safeParse(/^\d+$/.test(value) ? value : Number.NaN);
  if (!parsed.success) throw new InvalidArgumentError('must be a positive integer.');
  return parsed.data;
}

function portOption(value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new InvalidArgumentError('must be an integer 0-65535.');
  return port;
}

/**
 * Runs a command and exits with its code; modules never call process.exit themselves. Commands
 * import their modules when they run, so `--help` does not load mongoose, Koa and ioredis.
 */
function exitWith(run: () => Promise<number>): () => Promise<void> {
  return async () => {
    let code: number;
    try {
      code = await run();
    } catch (error) {
      if (isStartupError(error)) {
        process.stderr.write(`troupe: ${error.message}\n`);
      } else {
        process.stderr.write(`troupe: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      }
      code = 1;
    }
    process.exit(code);
  };
}

/** The configuration of a long-running server command, its heap growth applied (scripts/heap-growth.ts). */
function loadServerConfig(): Config {
  const config = loadConfig();
  applyHeapGrowingPercent(config.heap.growingPercent);
  return config;
}

const program = new Command('troupe')
  .description('An actor-model platform on a message broker: BullMQ actors with MongoDB state behind a Koa gateway.')
  .version(packageJson.version);

program
  .command('start')
  .description('run troupe (Redis, MongoDB, HTTP gateway) in one process until SIGINT/SIGTERM')
  .action(
    exitWith(async () => {
      const config = loadServerConfig();
      const [{ runStart }, { kinds }] = await Promise.all([import('./start.js'), import('../actors/index.js')]);
      return runStart(config, kinds);
    }),
  );

program
  .command('mongo')
  .description('run the embedded MongoDB-compatible server standalone so several processes can share it')
  .option('--port <port>', 'port to listen on (0 = any free port)', portOption, 27017)
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--dbpath <dir>', 'directory for the durable journal (default: memory only)')
  .option('--enable-test-commands', 'accept test-only commands such as configureFailPoint (fault-injection tests)')
  .action((options: { port: number; host: string; dbpath?: string; enableTestCommands?: boolean }) =>
    exitWith(async () => {
      const config = loadServerConfig();
      const { runMongo } = await import('./mongo.js');
      return runMongo(options, config);
    })(),
  );

program
  .command('login-link')
  .argument('[name]', 'the user to sign in', 'local')
  .description('print a fresh single-use web login link for a user (valid 15 minutes), connecting like `troupe users`')
  .action((name: string) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runLoginLink } = await import('./login-link.js');
      return runLoginLink(config, name);
    })(),
  );

program
  .command('build-web')
  .description('build the web client into dist/web (hashed, precompressed assets; npm start builds it when stale)')
  .option('--if-stale', 'build only when the sources changed since the last build')
  .action((options: { ifStale?: boolean }) =>
    exitWith(async () => {
      const { buildWebClient, ensureWebBuild } = await import('./web-build.js');
      const started = performance.now();
      const dir = options.ifStale ? (await ensureWebBuild()).dir : await buildWebClient();
      process.stdout.write(`web client in ${dir} (${Math.round(performance.now() - started)} ms)\n`);
      return 0;
    })(),
  );

const users = program.command('users').description('manage users and their API keys (in MONGODB_URI or the embedded server)');

users
  .command('create')
  .argument('<name>', 'unique user name (letters, digits, . _ @ -)')
  .option('--admin', 'give the user the admin role (the queue dashboard at /admin/queues)')
  .description('create a user and print their API key (shown once)')
  .action((name: string, options: { admin?: boolean }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersCreate } = await import('./users.js');
      return runUsersCreate(name, config, { admin: options.admin === true });
    })(),
  );

users
  .command('list')
  .option('--json', 'print JSON instead of a table')
  .description('list users: name, roles, created, key prefixes, revoked')
  .action((options: { json?: boolean }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersList } = await import('./users.js');
      return runUsersList(config, { json: options.json === true });
    })(),
  );

users
  .command('revoke')
  .argument('<target>', 'a user name (revokes the user and all their keys) or a key prefix trp_XXXXXXXXXXXX (one key)')
  .description('revoke a user or one API key')
  .action((target: string) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersRevoke } = await import('./users.js');
      return runUsersRevoke(target, config);
    })(),
  );

users
  .command('key')
  .argument('<name>', 'an existing user')
  .description('issue another API key for a user (e.g. when the first was lost; shown once)')
  .action((name: string) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersKey } = await import('./users.js');
      return runUsersKey(name, config);
    })(),
  );

users
  .command('grant')
  .argument('<name>', 'an existing user')
  .argument('<role>', 'the role to give: admin')
  .description('give a user a role (admin: the queue dashboard at /admin/queues)')
  .action((name: string, role: string) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersGrant } = await import('./users.js');
      return runUsersGrant(name, role, config);
    })(),
  );

users
  .command('revoke-role')
  .argument('<name>', 'an existing user')
  .argument('<role>', 'the role to take away: admin')
  .description("take a role from a user (their keys keep working; the role's routes answer 404 at once)")
  .action((name: string, role: string) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runUsersRevokeRole } = await import('./users.js');
      return runUsersRevokeRole(name, role, config);
    })(),
  );

const seed = program.command('seed').description('load a bundled dataset into MongoDB (MONGODB_URI or the embedded server)');

seed
  .command('mtg')
  .option('--force', 'reload even if this version of the dataset is already loaded')
  .option('--verify', 'load nothing: recompute the meta aggregates from the raw collections and report any difference (exit 1 if there is one)')
  .option('--add <file>', 'add new tournaments to the loaded dataset: a JSON (or .json.gz) file of {tournaments, decklists, matches} in the dataset\'s record format')
  .description('load the MTG tournament dataset (tournaments, decklists, matches, cards); does nothing if already loaded')
  .action((options: { force?: boolean; verify?: boolean; add?: string }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runSeedMtg, runSeedMtgAdd, runSeedMtgVerify, SeedMtgFlags } = await import('./seed-mtg.js');
      const flags = SeedMtgFlags.safeParse(options);
      if (!flags.success) {
        process.stderr.write(`troupe seed mtg: ${flags.error.issues.map((issue) => issue.message).join('; ')}\n`);
        return 1;
      }
      if (flags.data.add !== undefined) return runSeedMtgAdd(config, flags.data.add);
      return flags.data.verify ? runSeedMtgVerify(config) : runSeedMtg(config, { force: flags.data.force });
    })(),
  );

seed
  .command('scouting')
  .option('--user <name>', 'the user whose documents they become', 'local')
  .description('upload the bundled scouting documents (invented players, 2 sports, one PDF) for a user, as POST /documents does')
  .action((options: { user: string }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runSeedScouting } = await import('./seed-scouting.js');
      return runSeedScouting(config, { user: options.user });
    })(),
  );

program
  .command('play')
  .description('play Dominion against bots in the terminal (in-process, or on a troupe gateway with --api-url)')
  .option('--bots <list>', 'comma-separated bots, one seat each after yours (1-3; e.g. bmu,smithy-bm)', 'bmu')
  .option('--kingdom <kingdom>', 'a preset ("First Game"), "random", or 10 comma-separated kingdom cards (default: First Game)')
  .option('--edition <edition>', 'card pool: 2e, 1e or mixed')
  .option('--seed <n>', 'random seed, to replay a game (default: random)')
  .option('--api-url <url>', 'play on a running troupe gateway, e.g. http://127.0.0.1:8080')
  .option('--api-key <key>', 'API key for --api-url (default: $TROUPE_API_KEY)')
  .option('--game <id>', 'go back to your seat in a game on --api-url (e.g. after quit) instead of starting one')
  .action((options: { bots: string; kingdom?: string; edition?: string; seed?: string; apiUrl?: string; apiKey?: string; game?: string }, command: Command) =>
    exitWith(async () => {
      const { resolvePlayOptions, runPlay } = await import('./play/play-command.js');
      const resolved = resolvePlayOptions(options, process.env);
      if (!resolved.ok) command.error(`error: ${resolved.message}`, { exitCode: 2, code: 'troupe.play.usage' });
      return runPlay(resolved.config);
    })(),
  );

program
  .command('gateway')
  .description('run the HTTP/MCP gateway only (needs MONGODB_URI; run several behind a load balancer)')
  .action(
    exitWith(async () => {
      const config = loadServerConfig();
      const [{ runGateway }, { kinds }] = await Promise.all([import('./gateway.js'), import('../actors/index.js')]);
      return runGateway(config, kinds);
    }),
  );

program
  .command('smtp')
  .description('receive mail over SMTP for troupe inboxes (needs MONGODB_URI; 550 for unknown recipients)')
  .option('--port <port>', 'port to listen on (default: SMTP_PORT, else 2525)', portOption)
  .option('--host <host>', 'address to listen on (default: SMTP_HOST, else 127.0.0.1)')
  .action((options: { port?: number; host?: string }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runSmtp } = await import('./smtp.js');
      return runSmtp(config, options);
    })(),
  );

program
  .command('mcp')
  .description("serve troupe's MCP tools and resources to local MCP clients (stdio, SSE or HTTP), relaying each call to a troupe gateway")
  .option('--transport <name>', 'stdio: MCP on stdin/stdout, for clients that start the server (Claude Desktop, Cursor); sse: legacy HTTP+SSE (GET /sse, POST /messages?sessionId=); http: stateless streamable HTTP (POST /mcp; GET/DELETE 405), fine behind a load balancer', 'stdio')
  .option('--host <host>', 'address the sse/http server listens on (0.0.0.0: every interface)', '127.0.0.1')
  .option('--port <port>', 'port the sse/http server listens on (0 = any free port)', '3000')
  .option('--api-url <url>', 'base URL of the troupe gateway the calls go to (<url>/mcp); wins over TROUPE_API_URL (default: $TROUPE_API_URL, else http://127.0.0.1:8080)')
  .option('--api-key <key>', 'API key sent to the gateway as X-API-Key (default: $TROUPE_API_KEY, which keeps it out of process listings)')
  .addHelpText(
    'after',
    `
Environment variables:
  TROUPE_API_URL  base URL of the troupe gateway (default http://127.0.0.1:8080); --api-url wins over it
  TROUPE_API_KEY  API key, sent to the gateway as X-API-Key (create one with: troupe users create NAME);
                  unset: no key is sent (a gateway that needs one makes each call a clear 401 tool error)

tools/list and the resource templates come from this package's actor kinds, so they answer without a
gateway; tools/call and resources/read go to the gateway. stdout carries MCP only on stdio; logs go to
stderr. Over sse/http a client may send its own key (X-API-Key or Authorization: Bearer), used instead.

Examples:
  TROUPE_API_KEY=trp_… troupe mcp                        # stdio, for Claude Desktop or Cursor
  troupe mcp --transport http --host 0.0.0.0 --port 3000  # stateless streamable HTTP at /mcp
  troupe mcp --transport sse --api-url https://troupe.example.com`,
  )
  // Usage mistakes (a bad value, an unknown option) exit 2, like `troupe play`; help exits 0.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action((options: { transport: string; host: string; port: string; apiUrl?: string; apiKey?: string }, command: Command) =>
    exitWith(async () => {
      const { resolveMcpOptions, runMcp } = await import('./mcp.js');
      const resolved = resolveMcpOptions(options, process.env);
      if (!resolved.ok) command.error(`error: ${resolved.message}`, { exitCode: 2, code: 'troupe.mcp.usage' });
      return runMcp(resolved.config);
    })(),
  );

program
  .command('worker')
  .description('run actor workers only (needs MONGODB_URI); --kinds limits them to some actor kinds')
  .option('--kinds <list>', 'comma-separated actor kinds (default: all)', (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .action((options: { kinds?: string[] }) =>
    exitWith(async () => {
      const config = loadServerConfig();
      const [{ runWorker }, { kinds, selectKinds }] = await Promise.all([import('./worker.js'), import('../actors/index.js')]);
      return runWorker(config, selectKinds(kinds, options.kinds));
    })(),
  );

const bench = program.command('bench').description('run a benchmark and print its figures as JSON');

bench
  .command('mongo')
  .description('ops/s of common MongoDB operations on the embedded server (or MONGODB_URI if set)')
  .action(
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runMongoBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/mongo.js')]);
      // stdout carries the JSON result only; logs go to stderr.
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runMongoBench({ uri: config.mongo.uri, logger });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }),
  );

bench
  .command('runtime')
  .description(
    'troupe end to end vs a naive peer on the same stack (interleaved rounds: msgs/s, p50/p99, CPU per message, the peer\'s ordering violations), ' +
      'one sequential client\'s latency (JSON and SSE), raw BullMQ jobs/s as a reference; --growth: cost as actors grow (1 to 100,000); ' +
      '--cluster: troupe on one Redis vs a 3-master Redis Cluster, both started by the bench',
  )
  .option('--messages <n>', 'timed messages per round (and raw BullMQ jobs); with --growth, per round of a step at least', countOption, 10_000)
  .option('--warmup <n>', 'untimed messages first, so every run is measured with warm code', countOption, 1_000)
  .option('--concurrency <n>', 'client loops, one request in flight each', countOption, 32)
  .option('--actors <n>', 'distinct actors the loops share (fewer than loops: one actor gets concurrent messages)', countOption, 16)
  .option(
    '--rounds <n>',
    'rounds of troupe and of the peer (or, with --cluster, of one server and the cluster; with --growth, of every step), interleaved; the p99 of one round varies by several ms on a shared machine ' +
      '(default 5; with --growth, 3)',
    countOption,
  )
  .option('--latency-messages <n>', 'sequential messages per answer mode in the latency section', countOption, 1_000)
  .option('--trace-hops', 'run the gateway with TRACE_HOPS and print where the sequential messages\' time goes (logs at info: slower)')
  .option('--profile <dir>', 'write a V8 CPU profile of each troupe process into this directory')
  .option('--growth', 'instead: msgs/s and p99 with 1, 100, 10,000 and 100,000 actors, memory per idle actor, Redis commands and MongoDB operations per message, keys left')
  .option(
    '--cluster',
    'instead: troupe end to end on one redis-server vs a Redis Cluster of 3 masters, both started on loopback by the bench (REDIS_URL unused; needs redis-server and redis-cli), ' +
      'interleaved rounds: msgs/s, p50/p99, CPU per message of each process and cluster node',
  )
  .action(
    (options: { messages: number; warmup: number; concurrency: number; actors: number; rounds?: number; latencyMessages: number; traceHops?: boolean; profile?: string; growth?: boolean; cluster?: boolean }) =>
      exitWith(async () => {
        const config = loadConfig();
        const { createLogger } = await import('../logging/logger.js');
        const logger = createLogger({ ...config.log, fd: 2 });
        const redisUrl = config.redis.url ?? 'redis://127.0.0.1:6379';
        if (options.cluster) {
          const { runRuntimeClusterBench } = await import('./bench/runtime-cluster.js');
          const result = await runRuntimeClusterBench({ logger, messages: options.messages, warmup: options.warmup, concurrency: options.concurrency, actors: options.actors, rounds: options.rounds ?? 5 });
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          // A comparison to report, with no target to assert.
          return 0;
        }
        if (options.growth) {
          const { runRuntimeGrowthBench } = await import('./bench/runtime-growth.js');
          const result = await runRuntimeGrowthBench({ redisUrl, logger, messages: options.messages, rounds: options.rounds ?? 3, warmup: options.warmup, concurrency: options.concurrency });
          process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          return Object.values(result.acceptance).every((v) => v !== false) ? 0 : 1;
        }
        const { runRuntimeBench } = await import('./bench/runtime.js');
        const result = await runRuntimeBench({
          redisUrl,
          logger,
          messages: options.messages,
          warmup: options.warmup,
          concurrency: options.concurrency,
          actors: options.actors,
          rounds: options.rounds ?? 5,
          latencyMessages: options.latencyMessages,
          traceHops: options.traceHops,
          profileDir: options.profile,
        });
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return Object.values(result.acceptance).every((v) => v !== false) ? 0 : 1;
      })(),
  );

bench
  .command('meta')
  .description(
    'p50/p95 latency of each MTG meta tool through MCP on the full dataset (embedded MongoDB); targets: read tools p95 < 50 ms, coaching tools p95 < 100 ms; ' +
      'with --scale N, then N× the tournaments (older synthetic copies) and no read tool more than 1.5× slower',
  )
  .option('--calls <n>', 'timed calls per read tool', countOption, 60)
  .option(
    '--scale <n>',
    'after the shipped data, measure again with N× the tournaments (integer 1-20; 1: shipped data only)',
    (value: string) => {
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 20) throw new InvalidArgumentError('must be an integer from 1 to 20.');
      return Number(value);
    },
    1,
  )
  .option('--scale-calls <n>', 'timed calls per read tool at scale (default: --calls)', countOption)
  .action((options: { calls: number; scale: number; scaleCalls?: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runMetaBench, metaBenchPassed }] = await Promise.all([import('../logging/logger.js'), import('./bench/meta.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runMetaBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, calls: options.calls, scale: options.scale, scaleCalls: options.scaleCalls });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return metaBenchPassed(result) ? 0 : 1;
    })(),
  );

bench
  .command('chat')
  .description('p50/p95 latency of deck-coach chat turns (SSE) on a running troupe: a meta question and a coaching question')
  .option('--turns <n>', 'timed turns per question', countOption, 40)
  .action((options: { turns: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runChatBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/chat.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runChatBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, turns: options.turns });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      // The targets are reported, not asserted.
      return 0;
    })(),
  );

bench
  .command('scouting')
  .description('scouting: indexing chunks/s of the corpus replicated to N documents, retrieval p50/p95 over it, and one offline run end to end')
  .option('--documents <n>', 'documents to index (copies of the shipped corpus)', countOption, 1000)
  .option('--runs <n>', 'timed runs', countOption, 10)
  .action((options: { documents: number; runs: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runScoutingBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/scouting.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runScoutingBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, documents: options.documents, runs: options.runs });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      // The targets are reported, not asserted.
      return 0;
    })(),
  );

bench
  .command('mail')
  .description('mail: inbound messages/s over SMTP, search p50/p95 over N messages, wait_for_reply wake-up p50/p99')
  .option('--messages <n>', 'messages to search over', countOption, 100_000)
  .option('--inbound <n>', 'messages sent over SMTP', countOption, 300)
  .option('--wakeups <n>', 'timed wait_for_reply wake-ups', countOption, 100)
  .action((options: { messages: number; inbound: number; wakeups: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runMailBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/mail.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runMailBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, ...options });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      // The targets are reported, not asserted.
      return 0;
    })(),
  );

bench
  .command('engine')
  .description('Dominion engine games/s (BMU mirror, one core), Smithy-BM vs BMU record, solo turns to 4 Provinces')
  .option('--games <n>', 'timed BMU-mirror games', countOption, 50_000)
  .action((options: { games: number }) =>
    exitWith(async () => {
      const { runEngineBench } = await import('./bench/engine.js');
      const result = (await runEngineBench({ games: options.games })) as { acceptance: { at_least_10000_games_per_sec: boolean } };
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return result.acceptance.at_least_10000_games_per_sec ? 0 : 1;
    })(),
  );

bench
  .command('game')
  .description('p50/p99 latency of game_execute through MCP, one call after another, whole games against a bot, beside a naive MCP game server playing the same games; targets p50 ≤ 6 ms, p99 ≤ 20 ms')
  .option('--games <n>', 'timed games (each played on troupe and on the naive server)', countOption, 5)
  .option('--warmup <n>', 'untimed games first on each side, so the timed ones run on warm code', countOption, 10)
  .option('--trace-hops', 'run the gateway with TRACE_HOPS and print where each move\'s time goes (logs at info: slower)')
  .option('--profile <dir>', 'write a V8 CPU profile of each troupe process into this directory')
  .option('--one-process', 'run troupe\'s gateway and workers in one `troupe start` process, as npm start does (default: a troupe gateway and a troupe worker)')
  .action((options: { games: number; warmup: number; traceHops?: boolean; profile?: string; oneProcess?: boolean }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runGameBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/game.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runGameBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, games: options.games, warmupGames: options.warmup, traceHops: options.traceHops, profileDir: options.profile, oneProcess: options.oneProcess });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return Object.values(result.acceptance).every((v) => v !== false) ? 0 : 1;
    })(),
  );

bench
  .command('web')
  .description('the web client in headless chromium: bundle size, time to interactive, click on a Dominion option to the board updated')
  .option('--loads <n>', 'cold page loads to time', countOption, 10)
  .option('--clicks <n>', 'option clicks to time', countOption, 120)
  .action((options: { loads: number; clicks: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runWebBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/web.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runWebBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, ...options });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return Object.values(result.acceptance).every((v) => v !== false) ? 0 : 1;
    })(),
  );

function faultList(value: string): FaultName[] {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(FAULTS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length) throw new InvalidArgumentError(`a comma-separated list of ${FAULTS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  return names as FaultName[];
}

bench
  .command('faults')
  .description('the runtime under faults, with real processes on loopback: worker kill -9 (takeover), MongoDB kill -9 and restart, Redis restarted empty, slow and hostile clients (about 8 minutes)')
  .option('--only <faults>', `run only these, comma-separated: ${FAULTS.join(', ')}`, faultList, [...FAULTS])
  .option('--kills <n>', 'worker kill -9s for the takeover figures', countOption, 20)
  .option('--restarts <n>', 'MongoDB kill -9s and restarts', countOption, 5)
  .option('--resets <n>', 'Redis restarts without its data', countOption, 3)
  .option('--sse-clients <n>', 'SSE clients that never read', countOption, 200)
  .option('--slowloris <n>', 'requests whose headers never finish', countOption, 50)
  .action((options: { only: FaultName[]; kills: number; restarts: number; resets: number; sseClients: number; slowloris: number }) =>
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runFaultsBench }] = await Promise.all([import('../logging/logger.js'), import('./bench/faults.js')]);
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runFaultsBench({ redisUrl: config.redis.url ?? 'redis://127.0.0.1:6379', logger, ...options });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return Object.values(result.acceptance as Record<string, boolean | undefined>).every((met) => met !== false) ? 0 : 1;
    })(),
  );

await program.parseAsync(process.argv);
