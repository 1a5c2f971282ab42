import { expect } from 'chai';
import { DrainForecast } from '../../actors/runtime/drain-forecast.js';

describe('DrainForecast (when a post sends its drain job early)', () => {
  let clock = 0;
  const forecast = () => new DrainForecast(50, 1_000, () => clock);
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('expects no drain for an actor not seen busy here, and one for the linger time after it was', () => {
    const f = forecast();
    expect(f.drainLikelyGone('echo:a', 'u1'), 'never seen').to.equal(true);
    f.sawBusy('echo:a');
    clock += 49;
    expect(f.drainLikelyGone('echo:a', 'u1'), 'within the linger').to.equal(false);
    expect(f.drainLikelyGone('echo:b', 'u1'), 'another actor').to.equal(true);
    clock += 1;
    expect(f.drainLikelyGone('echo:a', 'u1'), 'the linger is over').to.equal(true);
  });

  it('counts the linger from the latest sighting (a reply that ended after its post)', () => {
    const f = forecast();
    f.sawBusy('echo:a');
    clock += 400;
    f.sawBusy('echo:a');
    clock += 20;
    expect(f.drainLikelyGone('echo:a', 'u1')).to.equal(false);
  });

  it('sends no early job for a sender its limits refused, for the hold time', () => {
    const f = forecast();
    f.sawRefusal('u1');
    clock += 999;
    expect(f.drainLikelyGone('echo:a', 'u1'), 'refused a moment ago').to.equal(false);
    expect(f.drainLikelyGone('echo:a', 'u2'), 'another sender').to.equal(true);
    clock += 1;
    expect(f.drainLikelyGone('echo:a', 'u1')).to.equal(true);
  });

  it('holds only what happened within its windows', () => {
    const f = forecast();
    for (let i = 0; i < 1_000; i++) {
      f.sawBusy(`echo:${i}`);
      f.sawRefusal(`u${i}`);
      clock += 10;
    }
    // 50 ms of sightings (5) and 1 s of refusals (100), each counted from the last one.
    expect(f.size).to.equal(5 + 100);
  });
});
