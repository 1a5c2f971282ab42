/**
 * troupe's processes run one esbuild bundle of its TypeScript sources, code-split so that what a
 * command does not use is never loaded; dependencies stay in node_modules. Node then loads a few
 * dozen files instead of compiling some 300 TypeScript modules through a loader hook at every start,
 * which roughly halves the time to start (see README, "Starting").
 *
 * The bundle is content addressed, like the web client's build: `dist/server/<hash>/cli.js`, where
 * the hash covers every file the bundle was built from (esbuild's own list), the TypeScript settings,
 * this builder and esbuild's version; `dist/server/CURRENT` names the build and its inputs. A start
 * whose inputs changed rebuilds first (about 0.3 s), so an edited source is always what runs.
 * Concurrent starts each build into a staging folder and rename it into place: nobody ever sees a
 * half-written build. An installed image carries the build without its sources: it runs as built.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const SERVER_DIST = join(ROOT, 'dist', 'server');
const CURRENT = join(SERVER_DIST, 'CURRENT');
const ENTRY = 'scripts/cli.ts';
/** Inputs that shape the output without being bundled: the compiler settings and this builder. */
const SETTINGS = ['tsconfig.json', 'bin/server-bundle.js'];
/** Older builds kept beside the current one: a process started from one may still load its lazy chunks. */
const KEPT_BUILDS = 8;
/** A staging folder this old belongs to a build that died. */
const STALE_STAGING_MS = 10 * 60_000;

/**
 * Read synchronously: every process start checks some 360 files before anything else runs, and one
 * awaited readFile per file cost about 110 ms of it against 8 ms read in one go.
 * @param {string[]} inputs @param {string} esbuildVersion
 */
function hashOf(inputs, esbuildVersion) {
  const hash = createHash('sha256').update(esbuildVersion).update('\0');
  for (const file of [...SETTINGS, ...inputs]) {
    hash.update(file).update('\0').update(readFileSync(join(ROOT, file))).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** @returns {Promise<{ hash: string, esbuild: string, inputs: string[] } | undefined>} */
async function readCurrent() {
  try {
    const current = JSON.parse(await readFile(CURRENT, 'utf8'));
    return /^[0-9a-f]{16}$/.test(current.hash) && Array.isArray(current.inputs) ? current : undefined;
  } catch {
    return undefined;
  }
}

/** The bundle's entry file (`cli.js`), built first when there is none or its sources changed. */
export async function serverEntry() {
  const current = await readCurrent();
  if (current !== undefined) {
    const entry = join(SERVER_DIST, current.hash, 'cli.js');
    if (existsSync(entry)) {
      if (!existsSync(join(ROOT, ENTRY))) return entry;
      let unchanged = false;
      try {
        unchanged = hashOf(current.inputs, current.esbuild) === current.hash;
      } catch {
        // An input is gone (a source deleted or renamed): build afresh.
      }
      if (unchanged) return entry;
    }
  } else if (!existsSync(join(ROOT, ENTRY))) {
    throw new Error(`troupe: no build in ${SERVER_DIST} and no sources to build one from`);
  }
  return (await buildServer()).entry;
}

/** One full build into `dist/server/<hash>/`, then CURRENT points at it. */
export async function buildServer() {
  const started = performance.now();
  const esbuild = await import('esbuild');
  const staging = join(SERVER_DIST, `.staging-${randomBytes(6).toString('hex')}`);
  await mkdir(staging, { recursive: true });
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      outdir: staging,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      packages: 'external',
      chunkNames: 'chunks/[name]-[hash]',
      // Error names and logged class names stay those of the sources.
      keepNames: true,
      sourcemap: 'linked',
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/')).sort();
    const hash = hashOf(inputs, esbuild.version);
    const final = join(SERVER_DIST, hash);
    if (existsSync(join(final, 'cli.js'))) await rm(staging, { recursive: true, force: true });
    else await rename(staging, final).catch(async (error) => {
      // Another process renamed the same build into place first.
      if (!existsSync(join(final, 'cli.js'))) throw error;
      await rm(staging, { recursive: true, force: true });
    });
    const pointer = `${CURRENT}.${randomBytes(4).toString('hex')}`;
    await writeFile(pointer, `${JSON.stringify({ hash, esbuild: esbuild.version, inputs, builtAt: new Date().toISOString() })}\n`);
    await rename(pointer, CURRENT);
    await pruneOldBuilds(hash);
    return { entry: join(final, 'cli.js'), hash, inputs: inputs.length, ms: Math.round(performance.now() - started) };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** @param {string} keep */
async function pruneOldBuilds(keep) {
  const entries = await readdir(SERVER_DIST, { withFileTypes: true });
  const builds = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !/^[0-9a-f]{16}$/.test(entry.name) || entry.name === keep) continue;
    builds.push({ name: entry.name, mtime: (await stat(join(SERVER_DIST, entry.name))).mtimeMs });
  }
  for (const entry of entries) {
    if (!entry.name.startsWith('.staging-')) continue;
    const { mtimeMs } = await stat(join(SERVER_DIST, entry.name)).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > STALE_STAGING_MS) await rm(join(SERVER_DIST, entry.name), { recursive: true, force: true });
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEPT_BUILDS)) await rm(join(SERVER_DIST, old.name), { recursive: true, force: true });
}
