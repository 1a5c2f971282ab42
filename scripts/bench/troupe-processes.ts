/**
 * What the end-to-end benchmarks share: troupe processes started as an operator would (`troupe mongo`,
 * `worker`, `gateway`, `start`), a free port, readiness, a bench user, and percentiles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface BenchProcess {
  child: ChildProcess;
  output: () => string;
  waitFor: (text: string) => Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `troupe <args>` with `env` over this process's environment; `nodeArgs` e.g. a CPU profiler flag. */
export function troupe(args: string[], env: Record<string, string>, options: { logLevel?: string; nodeArgs?: string[] } = {}): BenchProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), 'bin/troupe.js', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env, LOG_LEVEL: options.logLevel ?? 'info', LOG_PRETTY: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return {
    child,
    output: () => output,
    waitFor: (text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) {
            clearInterval(timer);
            resolve();
          } else if (child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`troupe ${args.join(' ')} exited before "${text}":\n${output}`));
          }
        };
        const timer = setInterval(check, 20);
      }),
  };
}

/** Runs `troupe users create` and returns the printed API key. */
export async function createBenchUser(env: Record<string, string>): Promise<string> {
  const users = troupe(['users', 'create', `bench-${process.pid}`], env);
  await once(users.child, 'exit');
  const key = /trp_[A-Za-z0-9_-]+/.exec(users.output())?.[0];
  if (!key) throw new Error(`could not create the bench user:\n${users.output()}`);
  return key;
}

/** Polls /readyz (which needs a live worker for every kind) until 200; fails if a process exits. */
export async function waitUntilReady(url: string, children: BenchProcess[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const exited = children.find((c) => c.child.exitCode !== null);
    if (exited) throw new Error(`a troupe process exited while starting:\n${exited.output()}`);
    const ok = await fetch(url).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The p-th percentile of ascending `sorted` (nearest rank). */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
