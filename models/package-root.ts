import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder troupe is installed in (its package.json beside bin/troupe.js), found by walking up from
 * this module: the same answer from the sources and from the bundle in dist/server/, whose files sit
 * at another depth. Data files and builds are found from here, never relative to a module. (A
 * package.json alone is not enough: an older tsc build left a copy of it in dist/.)
 */
function findPackageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'troupe.js'))) return dir;
    if (dirname(dir) === dir) throw new Error(`troupe: no package.json with bin/troupe.js above ${start}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot();

/** models/data: the bundled MTG dataset and the scouting corpus. */
export const MODELS_DATA_DIR = join(PACKAGE_ROOT, 'models', 'data');
