import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs `createLogger` in a child process (its output is the subject) and returns what it wrote to
 * stdout, and whether pino-pretty was loaded before and after the line was logged.
 */
async function logOneLine(pretty: boolean): Promise<{ stdout: string; loadedBefore: boolean; loadedAfter: boolean }> {
  const script = `
    import { createRequire } from 'node:module';
    import { createLogger } from './logging/logger.ts';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/pino-pretty/'));
    const before = loaded();
    createLogger({ level: 'info', pretty: ${pretty} }).info({ component: 'probe' }, 'hello from the logger');
    process.stderr.write(JSON.stringify({ before, after: loaded() }));
  `;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot });
  const { before, after } = JSON.parse(stderr) as { before: boolean; after: boolean };
  return { stdout, loadedBefore: before, loadedAfter: after };
}

describe('createLogger', function () {
  this.timeout(60_000);

  it('writes one JSON object per line, without loading pino-pretty', async () => {
    const { stdout, loadedBefore, loadedAfter } = await logOneLine(false);
    const line = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(line).to.include({ level: 30, component: 'probe', msg: 'hello from the logger' });
    expect(loadedBefore).to.equal(false);
    expect(loadedAfter).to.equal(false);
  });

  it('writes pretty lines when asked, loading pino-pretty then', async () => {
    const { stdout, loadedBefore, loadedAfter } = await logOneLine(true);
    expect(stdout).to.match(/INFO \(\d+\): hello from the logger/);
    expect(stdout).to.include('component: "probe"');
    expect(() => JSON.parse(stdout.trim())).to.throw();
    expect(loadedBefore).to.equal(false);
    expect(loadedAfter).to.equal(true);
  });
});
