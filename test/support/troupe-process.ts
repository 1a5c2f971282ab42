import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { UserDirectory } from '../../gateway/users.js';
import { connectMongo } from '../../models/connection.js';
import { loadConfig } from '../../scripts/config.js';
import { pollUntil, withDeadline } from './async.js';
import { copySeededDbpath, SEEDED_DB_NAME } from './seeded-dbpath.js';
import { tempDir } from './troupe-mongo-process.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `node bin/troupe.js ...` child process with its output collected for assertions and failure messages. */
export interface TroupeProcess {
  child: ChildProcess;
  exited: Promise<ExitStatus>;
  /** Set once the process has exited. */
  exitStatus(): ExitStatus | undefined;
  stdout(): string;
  stderr(): string;
  /** SIGKILL if still running (cleanup after a failed test). */
  kill(): Promise<void>;
}

/** `options.stdin`: text written to the command's standard input, which is then closed. */
export function spawnTroupe(args: string[], env: NodeJS.ProcessEnv, options: { stdin?: string } = {}): TroupeProcess {
  const child = spawn(process.execPath, ['bin/troupe.js', ...args], { cwd: repoRoot, env, stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  let stdout = '';
  let stderr = '';
  let status: ExitStatus | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve(status);
    });
  });
  return {
    child,
    exited,
    exitStatus: () => status,
    stdout: () => stdout,
    stderr: () => stderr,
    async kill() {
      if (status !== undefined) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The environment of this test run without the variables that would point troupe elsewhere. */
export function troupeEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PORT', 'HOST', 'MONGODB_URI', 'MONGODB_DB', 'EMBEDDED_MONGO_PORT', 'EMBEDDED_MONGO_DBPATH', 'LOG_LEVEL', 'LOG_PRETTY', 'NODE_ENV']) {
    delete env[name];
  }
  return { ...env, ...overrides };
}

/** Runs one `troupe ...` command to completion (bounded), keeping the process in `spawned` for cleanup. */
export async function runTroupe(
  args: string[],
  env: NodeJS.ProcessEnv,
  spawned: TroupeProcess[],
  timeoutMs = 50_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnTroupe(args, env);
  spawned.push(child);
  const { code } = await withDeadline(child.exited, timeoutMs, `troupe ${args.join(' ')} to exit`);
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** `troupe mongo` on `port` over a copy of a dbpath holding the bundled MTG dataset (database `troupe`). */
export async function startSeededMongo(port: number, env: NodeJS.ProcessEnv, spawned: TroupeProcess[]): Promise<void> {
  if ((env.MONGODB_DB ?? SEEDED_DB_NAME) !== SEEDED_DB_NAME) throw new Error(`startSeededMongo: the seeded database is ${SEEDED_DB_NAME}; leave MONGODB_DB unset`);
  const dbpath = await tempDir('troupe-seeded');
  await copySeededDbpath(dbpath.dir);
  const mongo = spawnTroupe(['mongo', '--port', String(port), '--dbpath', dbpath.dir], env);
  spawned.push(mongo);
  // The copy goes with the server: every test kills what it spawned.
  void mongo.exited.then(() => dbpath.remove());
  await pollUntil(() => mongo.stdout().includes('listening'), { timeoutMs: 30_000, what: 'troupe mongo' });
}

/**
 * A new user and the API key `troupe users create NAME [--admin]` would print, made with the same
 * UserDirectory in the MongoDB that `env` names (MONGODB_URI). A fixture, not the subject: a CLI
 * process costs about a second of CPU per user, and users-cli.test.ts tests the command itself.
 */
export async function createUserKey(name: string, env: NodeJS.ProcessEnv, { admin = false }: { admin?: boolean } = {}): Promise<string> {
  const { mongo } = loadConfig(env);
  if (mongo.uri === undefined) throw new Error('createUserKey: set MONGODB_URI in env (the server the troupe processes under test use)');
  const connected = await connectMongo({ uri: mongo.uri, dbName: mongo.dbName, embedded: mongo.embedded, logger: pino({ level: 'silent' }) });
  try {
    const users = await UserDirectory.open(connected.connection);
    return (await users.createUser(name, 'cli', admin ? ['admin'] : [])).key;
  } finally {
    await connected.stop();
  }
}

/** `troupe mongo` on `port` (memory only), once it listens. */
export async function startTroupeMongo(port: number, env: NodeJS.ProcessEnv, spawned: TroupeProcess[], args: string[] = []): Promise<TroupeProcess> {
  const mongo = spawnTroupe(['mongo', '--port', String(port), ...args], env);
  spawned.push(mongo);
  await pollUntil(() => mongo.stdout().includes('listening'), { timeoutMs: 30_000, what: 'troupe mongo' });
  return mongo;
}

/** A `troupe worker` and a `troupe gateway` on `env`, once `base`/readyz answers 200 (fails if either exits). */
export async function startWorkerAndGateway(env: NodeJS.ProcessEnv, base: string, spawned: TroupeProcess[]): Promise<void> {
  const services = ['worker', 'gateway'].map((command) => spawnTroupe([command], env));
  spawned.push(...services);
  await pollUntil(
    async () => {
      const exited = services.find((p) => p.exitStatus());
      if (exited) throw new Error(`troupe ${exited === services[0] ? 'worker' : 'gateway'} exited: ${exited.stderr()}`);
      return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
    },
    { timeoutMs: 90_000, what: `${base}/readyz` },
  );
}
