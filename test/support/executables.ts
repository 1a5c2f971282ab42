/** Finding the programs a test drives (redis-server, docker-compose …) without assuming a PATH. */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The first executable called `name` on PATH, then in `alsoIn` (e.g. /usr/bin), or undefined. */
export async function findExecutable(name: string, alsoIn: string[] = []): Promise<string | undefined> {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== ''), ...alsoIn];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
