/**
 * The meta tools answer exactly as the snapshot in test/fixtures/meta-answers.json.gz says, on the
 * shipped dataset: every format, windows 7, 14, 30 and 60, all eight tools (the coaching tools with the
 * offline narrator), deck inputs taken from the data (see test/support/meta-answers.ts). Nothing is
 * reduced: the full set takes about 15 s. The snapshot was written from the code before issue 17's
 * pre-aggregated statistics; an answer may change only for a bug found and explained, and then the
 * fixture is rewritten with `npx tsx test/support/write-meta-answers.ts`.
 *
 * The comparison is exact (numbers included). Only get_format_meta_rankings' metadata.timestamp, the
 * time of the call, is pinned to "<timestamp>". On a difference the test names the first differing
 * answers and paths with both values, not the whole 3 MB.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { answerDifferences, META_ANSWERS_FIXTURE, metaAnswers, onSeededCopy, stableJson } from '../support/meta-answers.js';

const brief = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
};

describe('meta tools: answers as in the snapshot (test/fixtures/meta-answers.json.gz)', function () {
  this.timeout(120_000);

  it('answers every tool, format and window exactly as before', async function () {
    const expected = JSON.parse(gunzipSync(await readFile(META_ANSWERS_FIXTURE)).toString('utf8')) as Record<string, unknown>;
    // Through JSON, as the fixture was written: undefined fields drop out, -0 becomes 0.
    const actual = JSON.parse(stableJson(await onSeededCopy((connection) => metaAnswers(connection)))) as Record<string, unknown>;

    const missing = Object.keys(expected).filter((key) => !(key in actual));
    const extra = Object.keys(actual).filter((key) => !(key in expected));
    const differing = Object.keys(expected).filter((key) => key in actual && stableJson(expected[key]) !== stableJson(actual[key]));
    if (missing.length + extra.length + differing.length === 0) return;

    const report = [
      `${differing.length} of ${Object.keys(expected).length} answers differ; ${missing.length} missing, ${extra.length} new`,
      ...missing.slice(0, 5).map((key) => `  missing: ${key}`),
      ...extra.slice(0, 5).map((key) => `  new: ${key}`),
      ...differing.slice(0, 8).flatMap((key) => [
        `  ${key}:`,
        ...answerDifferences(expected[key], actual[key], 3).map((d) => `    ${d.path}: expected ${brief(d.expected)}, got ${brief(d.actual)}`),
      ]),
      differing.length > 8 ? `  … and ${differing.length - 8} more: ${differing.slice(8, 40).join(' | ')}` : '',
    ].filter(Boolean);
    expect.fail(report.join('\n'));
  });
});
