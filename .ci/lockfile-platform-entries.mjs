/* global process, console */
// Adds lock entries for platform-specific optional packages (e.g. @msgpackr-extract/*-darwin-arm64) that the
// npm registry mirror here cannot serve, so `npm install` leaves them out and `npm ci` then refuses the lock file
// as out of sync. npm skips them on other platforms, so the entries only have to exist. Run after `npm install`:
//   node .ci/lockfile-platform-entries.mjs package-lock.json
import fs from 'node:fs';
const path = process.argv[2];
const lock = JSON.parse(fs.readFileSync(path, 'utf8'));
const pkgs = lock.packages;
let added = 0;
for (const [where, entry] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = where === '' ? '' : `${where}/`;
    const candidates = [`${base}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((c) => pkgs[c])) continue;
    const m = /-(darwin|linux|win32|freebsd|android)-(arm64|x64|arm|ia32)$/.exec(name);
    if (!m) continue;
    pkgs[`node_modules/${name}`] = { version: version.replace(/^[\^~]/, ''), cpu: [m[2]], optional: true, os: [m[1]] };
    added++;
  }
}
fs.writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
