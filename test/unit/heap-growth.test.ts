import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const heapGrowth = fileURLToPath(new URL('../../scripts/heap-growth.ts', import.meta.url));

/**
 * The growing factors V8 reports (`--trace-gc-verbose`) for the old generation's next limit after each
 * full collection, in a fresh process that applied `percent` first and then keeps a growing heap.
 */
async function reportedFactors(percent: number): Promise<string[]> {
  const script = `
    const { applyHeapGrowingPercent } = await import(${JSON.stringify(heapGrowth)});
    applyHeapGrowingPercent(${percent});
    const kept = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 50000; i++) kept.push({ round, i, text: 'x' + i });
      globalThis.gc();
    }
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--expose-gc', '--trace-gc-verbose', '--input-type=module', '-e', script], { maxBuffer: 64 * 1024 * 1024 });
  return [...stdout.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((m) => m[1]);
}

describe('applyHeapGrowingPercent', () => {
  it('sets the factor V8 grows the old generation by after a full collection', async () => {
    const halfAgain = await reportedFactors(50);
    expect(halfAgain).to.not.be.empty;
    expect(new Set(halfAgain)).to.deep.equal(new Set(['1.5']));
    const tripled = await reportedFactors(200);
    expect(new Set(tripled)).to.deep.equal(new Set(['3.0']));
  });
});
