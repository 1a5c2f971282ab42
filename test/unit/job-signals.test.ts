import { expect } from 'chai';
import { deferred } from '../support/async.js';
import { JobSignals } from '../../actors/runtime/job-signals.js';

describe('JobSignals (a worker-wide abort, one signal per job)', () => {
  it('gives each running job its own signal and aborts them all together', async () => {
    const signals = new JobSignals();
    const release = deferred();
    const seen: AbortSignal[] = [];
    const jobs = Array.from({ length: 20 }, () =>
      signals.run(async (signal) => {
        seen.push(signal);
        await release.promise;
        return signal.aborted;
      }),
    );
    expect(new Set(seen).size).to.equal(20);
    signals.abortAll();
    release.resolve();
    expect(await Promise.all(jobs)).to.deep.equal(seen.map(() => true));
  });

  it('starts a job after the abort with its signal already aborted, and leaves finished jobs alone', async () => {
    const signals = new JobSignals();
    let finished: AbortSignal | undefined;
    await signals.run(async (signal) => {
      finished = signal;
    });
    signals.abortAll();
    expect(finished?.aborted).to.equal(false);
    expect(await signals.run(async (signal) => signal.aborted)).to.equal(true);
  });
});
