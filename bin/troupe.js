#!/usr/bin/env node
// The CLI is written in TypeScript; tsx compiles it on load so `npm install && npm start` needs no build step.
const [major, minor] = process.versions.node.split('.').map(Number);
// package.json's engines: every dependency's engines include Node 20.19 and later.
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`troupe: needs Node 20.19 or later; this is Node ${process.versions.node}. Install a current Node (https://nodejs.org) and try again.\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
await import('../scripts/cli.ts');
