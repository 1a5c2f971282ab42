import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * bin/server-bundle.js in a scratch project of its own (its root is where the file lies): a two-file
 * CLI, the repository's tsconfig and node_modules. Each call runs the bundle's entry the way
 * bin/troupe.js does, in a fresh process, and says what it printed and which build it ran.
 */
describe('the server bundle (bin/server-bundle.js): rebuilt exactly when an input changed', function () {
  this.timeout(60_000);
  let project: string;

  const startOnce = async () => {
    const script = "const { serverEntry } = await import('./bin/server-bundle.js'); const entry = await serverEntry(); console.log(entry); await import(entry);";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    const [entry, ...printed] = stdout.trim().split('\n');
    return { entry, printed: printed.join('\n') };
  };
  const current = async () => JSON.parse(await readFile(join(project, 'dist', 'server', 'CURRENT'), 'utf8')) as { hash: string; inputs: string[]; builtAt: string };

  before(async () => {
    project = await mkdtemp(join(tmpdir(), 'troupe-bundle-'));
    await mkdir(join(project, 'bin'));
    await mkdir(join(project, 'scripts'));
    await copyFile(join(repoRoot, 'bin', 'server-bundle.js'), join(project, 'bin', 'server-bundle.js'));
    await copyFile(join(repoRoot, 'tsconfig.json'), join(project, 'tsconfig.json'));
    await symlink(join(repoRoot, 'node_modules'), join(project, 'node_modules'));
    await writeFile(join(project, 'scripts', 'greeting.ts'), "export const greeting: string = 'hello';\n");
    await writeFile(join(project, 'scripts', 'cli.ts'), "import { greeting } from './greeting.js';\nconsole.log(greeting);\n");
  });

  after(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('builds on first start, reuses the build while nothing changed, and rebuilds after an edit or a removed input', async () => {
    const first = await startOnce();
    expect(first.printed).to.equal('hello');
    const built = await current();
    expect(built.inputs).to.deep.equal(['scripts/cli.ts', 'scripts/greeting.ts']);

    const again = await startOnce();
    expect(again.entry, 'no input changed: the same build').to.equal(first.entry);
    expect((await current()).builtAt, 'and nothing was built').to.equal(built.builtAt);

    await writeFile(join(project, 'scripts', 'greeting.ts'), "export const greeting: string = 'hello again';\n");
    const edited = await startOnce();
    expect(edited.printed).to.equal('hello again');
    expect(edited.entry).to.not.equal(first.entry);

    // The entry no longer imports greeting.ts, which is then deleted: the check must not fail on it.
    await writeFile(join(project, 'scripts', 'cli.ts'), "console.log('standalone');\n");
    await unlink(join(project, 'scripts', 'greeting.ts'));
    const rebuilt = await startOnce();
    expect(rebuilt.printed).to.equal('standalone');
    expect((await current()).inputs).to.deep.equal(['scripts/cli.ts']);
  });
});
