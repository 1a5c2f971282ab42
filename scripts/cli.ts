import { Command, InvalidArgumentError } from 'commander';
import { MongoUnavailableError } from '../models/mongo-unavailable-error.js';
import { RedisUnavailableError } from '../queues/redis-unavailable-error.js';
import packageJson from '../package.json' with { type: 'json' };
import { ConfigError, loadConfig } from './config.js';

/** Errors whose message is the whole story: printed alone, without a stack trace. */
function isStartupError(error: unknown): error is Error {
  return error instanceof ConfigError || error instanceof RedisUnavailableError || error instanceof MongoUnavailableError;
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

const program = new Command('troupe')
  .description('An actor-model platform on a message broker: BullMQ actors with MongoDB state behind a Koa gateway.')
  .version(packageJson.version);

program
  .command('start')
  .description('run troupe (Redis, MongoDB, HTTP gateway) in one process until SIGINT/SIGTERM')
  .action(
    exitWith(async () => {
      const config = loadConfig();
      const { runStart } = await import('./start.js');
      return runStart(config);
    }),
  );

program
  .command('mongo')
  .description('run the embedded MongoDB-compatible server standalone so several processes can share it')
  .option('--port <port>', 'port to listen on (0 = any free port)', portOption, 27017)
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--dbpath <dir>', 'directory for the durable journal (default: memory only)')
  .action((options: { port: number; host: string; dbpath?: string }) =>
    exitWith(async () => {
      const config = loadConfig();
      const { runMongo } = await import('./mongo.js');
      return runMongo(options, config);
    })(),
  );

const bench = program.command('bench').description('run a benchmark and print its figures as JSON');

bench
  .command('mongo')
  .description('ops/s of common MongoDB operations on the embedded server (or MONGODB_URI if set)')
  .action(
    exitWith(async () => {
      const config = loadConfig();
      const [{ createLogger }, { runMongoBench }] = await Promise.all([import('./logger.js'), import('./bench/mongo.js')]);
      // stdout carries the JSON result only; logs go to stderr.
      const logger = createLogger({ ...config.log, fd: 2 });
      const result = await runMongoBench({ uri: config.mongo.uri, logger });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }),
  );

await program.parseAsync(process.argv);
