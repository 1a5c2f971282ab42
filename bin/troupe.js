#!/usr/bin/env node
// The CLI is written in TypeScript and runs as a bundle that is rebuilt when its sources change (see
// server-bundle.js), so `npm install && npm start` needs no build step.
const [major, minor] = process.versions.node.split('.').map(Number);
// package.json's engines: every dependency's engines include Node 20.19 and later.
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`troupe: needs Node 20.19 or later; this is Node ${process.versions.node}. Install a current Node (https://nodejs.org) and try again.\n`);
  process.exit(1);
}
// Stack traces name the TypeScript sources, through the bundle's source maps.
process.setSourceMapsEnabled(true);
const { serverEntry } = await import('./server-bundle.js');
const { pathToFileURL } = await import('node:url');
await import(pathToFileURL(await serverEntry()).href);
