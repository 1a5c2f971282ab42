/**
 * Runs `troupe mongo` (the embedded MongoDB-compatible server, standalone) as a child process, for
 * tests that restart or kill the server. Everything started here is stopped by `stopAll()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** A temporary directory removed by the returned `remove()`. */
export async function tempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TroupeMongoProcess {
  port: number;
  /** `mongodb://127.0.0.1:PORT/?directConnection=true` */
  uri: string;
  /** The URI the server logged when it started listening, if it logged one. */
  loggedUri: string | undefined;
  child: ChildProcess;
  exited: Promise<ExitStatus>;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL and an error after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<ExitStatus>;
  /** SIGKILL (kill -9) and waits for the exit. */
  kill9(): Promise<ExitStatus>;
}

export class TroupeMongoProcesses {
  private readonly running = new Set<TroupeMongoProcess>();

  /**
   * Spawns `node bin/troupe.js mongo --port P --host 127.0.0.1 --dbpath DIR` and resolves once a
   * driver connection succeeds; fails (with the process output) if it exits or is not ready in time.
   */
  async start({ dbpath, port, readyTimeoutMs = 30_000 }: { dbpath: string; port?: number; readyTimeoutMs?: number }): Promise<TroupeMongoProcess> {
    const chosenPort = port ?? (await freePort());
    const env = { ...process.env };
    delete env.MONGODB_URI;
    const child = spawn(
      process.execPath,
      ['bin/troupe.js', 'mongo', '--port', String(chosenPort), '--host', '127.0.0.1', '--dbpath', dbpath],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    let output = '';
    let loggedUri: string | undefined;
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      collect(chunk);
      for (const line of chunk.toString('utf8').split('\n')) {
        try {
          const parsed: unknown = JSON.parse(line);
          if (parsed && typeof parsed === 'object' && typeof (parsed as { uri?: unknown }).uri === 'string') {
            loggedUri ??= (parsed as { uri: string }).uri;
          }
        } catch {
          // not a JSON log line
        }
      }
    });
    child.stderr!.on('data', collect);
    let exitStatus: ExitStatus | undefined;
    const exited = new Promise<ExitStatus>((resolve) => {
      child.once('exit', (code, signal) => {
        exitStatus = { code, signal };
        resolve(exitStatus);
      });
    });

    const uri = `mongodb://127.0.0.1:${chosenPort}/?directConnection=true`;
    const proc: TroupeMongoProcess = {
      port: chosenPort,
      uri,
      get loggedUri() {
        return loggedUri;
      },
      child,
      exited,
      output: () => output,
      stop: async (timeoutMs = 15_000) => {
        if (exitStatus) return exitStatus;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        const status = await exited;
        clearTimeout(timer);
        this.running.delete(proc);
        if (status.signal === 'SIGKILL') {
          throw new Error(`troupe mongo did not exit within ${timeoutMs} ms of SIGTERM; output:\n${output}`);
        }
        return status;
      },
      kill9: async () => {
        if (exitStatus) return exitStatus;
        child.kill('SIGKILL');
        const status = await exited;
        this.running.delete(proc);
        return status;
      },
    };
    this.running.add(proc);

    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (exitStatus) {
        this.running.delete(proc);
        throw new Error(`troupe mongo exited (${JSON.stringify(exitStatus)}) before accepting connections; output:\n${output}`);
      }
      const probe = new MongoClient(uri, { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 });
      try {
        await probe.connect();
        await probe.db('admin').command({ ping: 1 });
        return proc;
      } catch {
        // not listening yet
      } finally {
        await probe.close().catch(() => undefined);
      }
      if (Date.now() >= deadline) {
        await proc.kill9();
        throw new Error(`troupe mongo was not ready within ${readyTimeoutMs} ms; output:\n${output}`);
      }
    }
  }

  /** Kills every process still running (for `afterEach`). */
  async stopAll(): Promise<void> {
    for (const proc of [...this.running]) await proc.kill9();
  }
}
