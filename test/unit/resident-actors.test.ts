import { expect } from 'chai';
import { DEFAULT_RESIDENT_ACTORS, ResidentActors, type Resident } from '../../actors/runtime/residents.js';

const copy = (epoch: number): Resident => ({ epoch, appliedSeq: `${epoch}-0`, state: { n: epoch }, ownerId: 'u1' });

/** Drains `key` once here, committing `resident`; returns what the drain was handed. */
function drain(residents: ResidentActors, key: string, resident: Resident): Resident | undefined {
  const claim = residents.claim(key);
  residents.remember(key, resident);
  claim.release();
  return claim.resident;
}

describe('ResidentActors (RESIDENT_ACTORS)', () => {
  it('keeps at most its bound, dropping the least recently committed', () => {
    const residents = new ResidentActors(2);
    drain(residents, 'a', copy(1));
    drain(residents, 'b', copy(1));
    drain(residents, 'a', copy(2));
    drain(residents, 'c', copy(1));
    expect(residents.size).to.equal(2);
    expect(residents.claim('b').resident, 'b was the least recently committed').to.equal(undefined);
    expect(residents.claim('a').resident).to.deep.equal(copy(2));
  });

  it('with a bound of 0 keeps nothing: every drain fences', () => {
    const residents = new ResidentActors(0);
    drain(residents, 'a', copy(1));
    expect(residents.size).to.equal(0);
    expect(drain(residents, 'a', copy(2))).to.equal(undefined);
  });

  it('keeps 1,000 by default', () => {
    const residents = new ResidentActors();
    for (let i = 0; i < DEFAULT_RESIDENT_ACTORS + 10; i++) drain(residents, `k${i}`, copy(1));
    expect(residents.size).to.equal(DEFAULT_RESIDENT_ACTORS);
  });
});
