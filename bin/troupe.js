#!/usr/bin/env node
// The CLI is written in TypeScript; tsx compiles it on load so `npm install && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../scripts/cli.ts');
