/**
 * Writes test/fixtures/meta-answers.json.gz: every meta tool's answer on the shipped dataset (see
 * meta-answers.ts), the snapshot test/integration/meta-answers.test.ts compares against. Run it only
 * when an answer is meant to change, and say why in the commit:
 *
 *   npx tsx test/support/write-meta-answers.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { META_ANSWERS_FIXTURE, metaAnswers, onSeededCopy, stableJson } from './meta-answers.js';

const started = performance.now();
const answers = await onSeededCopy((connection) => metaAnswers(connection));
const json = `${stableJson(answers)}\n`;
await mkdir(dirname(META_ANSWERS_FIXTURE), { recursive: true });
const gz = gzipSync(json, { level: 9 });
await writeFile(META_ANSWERS_FIXTURE, gz);
console.log(
  `${META_ANSWERS_FIXTURE}: ${Object.keys(answers).length} answers, ${json.length} bytes of JSON, ${gz.length} gzipped, ` +
    `${Math.round(performance.now() - started)} ms`,
);
