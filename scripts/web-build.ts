/**
 * Builds the web client (web/src, Preact + TypeScript) with esbuild into hashed, precompressed
 * static assets that the gateway serves. Output is content addressed: `dist/web/<source hash>/`,
 * with `dist/web/CURRENT` naming the build to serve, so concurrent builds (parallel tests, two
 * `troupe start`s) never see each other's half-written files.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../models/package-root.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const ROOT = PACKAGE_ROOT;
const WEB_SOURCE = join(ROOT, 'web');
/** Where builds go; the gateway serves `<this>/<CURRENT>`. */
export const WEB_DIST = join(ROOT, 'dist', 'web');
const CURRENT = join(WEB_DIST, 'CURRENT');

/** What a build wrote, kept as `manifest.json` beside it (and read by bench:web). */
export interface WebBuildManifest {
  sourceHash: string;
  builtAt: string;
  /** The entry script and stylesheet, as served under /assets/. */
  entry: string;
  stylesheet: string;
  files: Array<{ path: string; bytes: number; gzipBytes: number; brotliBytes: number }>;
  /** Per script (by file name): the sources in it and the chunks it loads, at once or on demand. */
  scripts: Record<string, { inputs: string[]; imports: string[]; dynamicImports: string[] }>;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * A hash of everything the build reads: the client's sources, this builder and the lock file (a
 * dependency bump changes the bundle). Equal hashes mean the built assets are current.
 */
export async function webSourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const inputs = [...(await filesUnder(join(WEB_SOURCE, 'src'))), join(WEB_SOURCE, 'index.html'), join(ROOT, 'scripts', 'web-build.ts'), join(ROOT, 'package-lock.json')];
  for (const file of inputs) {
    hash.update(relative(ROOT, file)).update('\0').update(await readFile(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The directory of the build to serve, or undefined when nothing has been built. */
export async function currentWebBuild(): Promise<string | undefined> {
  const name = (await readFile(CURRENT, 'utf8').catch(() => '')).trim();
  if (!/^[0-9a-f]{16}$/.test(name)) return undefined;
  const dir = join(WEB_DIST, name);
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

export async function readWebManifest(dir: string): Promise<WebBuildManifest> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as WebBuildManifest;
}

/** Builds the client when the sources changed since the current build (or there is none). */
export async function ensureWebBuild(log: (line: string) => void = () => {}): Promise<{ dir: string | undefined; built: boolean }> {
  const current = await currentWebBuild();
  // An installed image carries the build, not the sources: serve what was built.
  if (!existsSync(join(WEB_SOURCE, 'src'))) return { dir: current, built: false };
  const sourceHash = await webSourceHash();
  if (current !== undefined && basename(current) === sourceHash) return { dir: current, built: false };
  log(current === undefined ? 'building the web client (first start)' : 'the web client sources changed: rebuilding it');
  const started = performance.now();
  const dir = await buildWebClient(sourceHash);
  log(`web client built in ${Math.round(performance.now() - started)} ms`);
  return { dir, built: true };
}

/** One full build: bundle, precompress, write index.html and the manifest, then point CURRENT at it. */
export async function buildWebClient(sourceHash?: string): Promise<string> {
  const hash = sourceHash ?? (await webSourceHash());
  const finalDir = join(WEB_DIST, hash);
  const staging = join(WEB_DIST, `.staging-${hash}-${randomBytes(4).toString('hex')}`);
  await mkdir(join(staging, 'assets'), { recursive: true });
  try {
    const result = await build({
      entryPoints: { app: join(WEB_SOURCE, 'src', 'main.tsx') },
      outdir: join(staging, 'assets'),
      bundle: true,
      splitting: true,
      format: 'esm',
      target: 'es2022',
      platform: 'browser',
      minify: true,
      sourcemap: 'linked',
      metafile: true,
      jsx: 'automatic',
      jsxImportSource: 'preact',
      entryNames: '[name]-[hash]',
      chunkNames: 'chunk-[hash]',
      assetNames: '[name]-[hash]',
      tsconfig: join(WEB_SOURCE, 'tsconfig.json'),
      logLevel: 'silent',
      legalComments: 'linked',
    });
    const outputs = Object.entries(result.metafile.outputs);
    const entryOutput = outputs.find(([, meta]) => meta.entryPoint !== undefined && meta.entryPoint.endsWith('main.tsx'));
    if (!entryOutput) throw new Error('web build: esbuild produced no entry script');
    const entry = basename(entryOutput[0]);
    const stylesheet = entryOutput[1].cssBundle ? basename(entryOutput[1].cssBundle) : '';

    const template = await readFile(join(WEB_SOURCE, 'index.html'), 'utf8');
    const html = template
      .replace('<!-- stylesheet -->', stylesheet ? `<link rel="stylesheet" href="/assets/${stylesheet}">` : '')
      .replace('<!-- entry -->', `<script type="module" src="/assets/${entry}"></script>`);
    await writeFile(join(staging, 'index.html'), html);

    // Every file at once, so the thread pool compresses them in parallel. Source maps are left as
    // they are: only developer tools fetch them, and they are most of the bytes.
    const assets = (await filesUnder(join(staging, 'assets'))).filter((file) => !file.endsWith('.map'));
    const files: WebBuildManifest['files'] = await Promise.all(
      assets.map(async (file) => {
        const content = await readFile(file);
        const [gz, br] = await Promise.all([gzipAsync(content, { level: 9 }), brotliAsync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } })]);
        await Promise.all([writeFile(`${file}.gz`, gz), writeFile(`${file}.br`, br)]);
        return { path: relative(staging, file), bytes: content.length, gzipBytes: gz.length, brotliBytes: br.length };
      }),
    );
    const scripts: WebBuildManifest['scripts'] = {};
    for (const [path, meta] of outputs) {
      if (!path.endsWith('.js')) continue;
      const importsOf = (kind: string) => meta.imports.filter((i) => i.kind === kind && !i.external).map((i) => basename(i.path));
      scripts[basename(path)] = { inputs: Object.keys(meta.inputs), imports: importsOf('import-statement'), dynamicImports: importsOf('dynamic-import') };
    }
    const manifest: WebBuildManifest = { sourceHash: hash, builtAt: new Date().toISOString(), entry, stylesheet, files, scripts };
    await writeFile(join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));

    // Another build of the same sources may have finished first: theirs is identical, keep it.
    await rename(staging, finalDir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
      await rm(staging, { recursive: true, force: true });
    });
    const pointer = join(WEB_DIST, `.CURRENT-${randomBytes(4).toString('hex')}`);
    await writeFile(pointer, hash);
    await rename(pointer, CURRENT);
    await removeOldBuilds(hash);
    return finalDir;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Keeps the current build and the newest previous one (a page still open may load its chunks). */
async function removeOldBuilds(keep: string): Promise<void> {
  const builds = (await readdir(WEB_DIST, { withFileTypes: true })).filter((entry) => entry.isDirectory() && /^[0-9a-f]{16}$/.test(entry.name) && entry.name !== keep);
  const dated = await Promise.all(builds.map(async (entry) => ({ name: entry.name, mtime: (await stat(join(WEB_DIST, entry.name))).mtimeMs })));
  dated.sort((a, b) => b.mtime - a.mtime);
  for (const old of dated.slice(1)) await rm(join(WEB_DIST, old.name), { recursive: true, force: true });
}
