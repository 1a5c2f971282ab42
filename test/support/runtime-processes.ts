/** Spawning test worker (and later gateway) processes for multi-process runtime tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ExitStatus } from './troupe-process.js';
import { troupeEnv } from './troupe-process.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildHandle {
  child: ChildProcess;
  exited: Promise<ExitStatus>;
  output(): string;
  /** Resolves once the output contains `text` (rejects if the process exits first). */
  waitFor(text: string): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<ExitStatus>;
}

export function spawnScript(script: string, env: Record<string, string>): ChildHandle {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env: troupeEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters: Array<{ text: string; resolve: () => void; reject: (e: Error) => void }> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const w of [...waiters]) {
      if (output.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let status: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = { code, signal };
      for (const w of waiters.splice(0)) w.reject(new Error(`process exited (${code ?? signal}) before printing "${w.text}":\n${output}`));
      resolve(status);
    });
  });
  return {
    child,
    exited,
    output: () => output,
    waitFor(text) {
      if (output.includes(text)) return Promise.resolve();
      if (status) return Promise.reject(new Error(`process already exited:\n${output}`));
      return new Promise((resolve, reject) => waiters.push({ text, resolve, reject }));
    },
    async kill(signal = 'SIGKILL') {
      if (status) return status;
      child.kill(signal);
      return exited;
    },
  };
}

export const startTestWorker = (env: Record<string, string>) => spawnScript('test/support/worker-main.ts', env);
