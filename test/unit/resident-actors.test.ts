import { expect } from 'chai';
import { calculateObjectSize } from 'bson';
import { DEFAULT_RESIDENT_BOUNDS, RESIDENT_ENTRY_BYTES, ResidentActors, type Resident, type ResidentBounds } from '../../actors/runtime/residents.js';

const copy = (epoch: number, state: unknown = { n: epoch }): Resident => ({ epoch, appliedSeq: `${epoch}-0`, state, ownerId: 'u1' });
const sizeOf = (resident: Resident) => RESIDENT_ENTRY_BYTES + calculateObjectSize({ state: resident.state });

/** Drains `key` once here, committing `resident`; returns what the drain was handed. */
function drain(residents: ResidentActors, key: string, resident: Resident): Resident | undefined {
  const claim = residents.claim(key);
  residents.remember(key, resident);
  claim.release();
  return claim.resident;
}

describe('ResidentActors (RESIDENT_MEMORY, RESIDENT_IDLE_SECONDS)', () => {
  let clock = 0;
  const made: ResidentActors[] = [];
  const residentsWithin = (bounds: Partial<ResidentBounds>) => {
    const residents = new ResidentActors({ ...DEFAULT_RESIDENT_BOUNDS, ...bounds }, () => clock);
    made.push(residents);
    return residents;
  };
  beforeEach(() => {
    clock = 1_000_000;
  });
  afterEach(() => {
    for (const residents of made.splice(0)) residents.close();
  });

  it('hands the last committed copy to the next drain of the actor', () => {
    const residents = residentsWithin({});
    expect(drain(residents, 'a', copy(1))).to.equal(undefined);
    expect(drain(residents, 'a', copy(2))).to.deep.equal(copy(1));
    expect(residents.claim('a').resident).to.deep.equal(copy(2));
  });

  it('keeps its copies within the memory bound, dropping the least recently committed', () => {
    const one = sizeOf(copy(1));
    const residents = residentsWithin({ memoryBytes: 2 * one + 10 });
    drain(residents, 'a', copy(1));
    drain(residents, 'b', copy(1));
    drain(residents, 'a', copy(2));
    drain(residents, 'c', copy(1));
    expect(residents.size).to.equal(2);
    expect(residents.bytes).to.equal(2 * one);
    expect(residents.claim('b').resident, 'b was the least recently committed').to.equal(undefined);
    expect(residents.claim('a').resident).to.deep.equal(copy(2));
  });

  it('counts a copy by its state: a large state pushes out several small ones, and one larger than the bound is not kept', () => {
    const small = sizeOf(copy(1));
    const residents = residentsWithin({ memoryBytes: 10 * small });
    for (let i = 0; i < 10; i++) drain(residents, `s${i}`, copy(1));
    expect(residents.size).to.equal(10);
    const large = copy(1, { text: 'x'.repeat(4 * small) });
    drain(residents, 'large', large);
    expect(residents.claim('large').resident).to.deep.equal(large);
    expect(residents.size, 'the oldest small copies made room').to.be.lessThan(10);
    expect(residents.bytes).to.be.at.most(10 * small);
    drain(residents, 'huge', copy(1, { text: 'x'.repeat(11 * small) }));
    expect(residents.claim('huge').resident).to.equal(undefined);
  });

  it('with a memory bound of 0 keeps nothing: every drain fences', () => {
    const residents = residentsWithin({ memoryBytes: 0 });
    drain(residents, 'a', copy(1));
    expect(residents.size).to.equal(0);
    expect(drain(residents, 'a', copy(2))).to.equal(undefined);
  });

  it('drops copies not committed within the idle time, and keeps the rest', () => {
    const residents = residentsWithin({ idleMs: 60_000 });
    drain(residents, 'a', copy(1));
    clock += 30_000;
    drain(residents, 'b', copy(1));
    clock += 30_000;
    residents.dropIdle();
    expect(residents.claim('a').resident, 'a was idle for 60 s').to.equal(undefined);
    expect(residents.claim('b').resident).to.deep.equal(copy(1));
    clock += 30_000;
    residents.dropIdle();
    expect(residents.size).to.equal(0);
    expect(residents.bytes).to.equal(0);
  });

  it('with an idle time of 0 keeps copies however long they sit', () => {
    const residents = residentsWithin({ idleMs: 0 });
    drain(residents, 'a', copy(1));
    clock += 365 * 24 * 3600_000;
    residents.dropIdle();
    expect(residents.claim('a').resident).to.deep.equal(copy(1));
  });

  it('hands no copy to a second concurrent drain, and forgets the copy for both', () => {
    const residents = residentsWithin({});
    drain(residents, 'a', copy(1));
    const first = residents.claim('a');
    const second = residents.claim('a');
    expect(first.resident).to.deep.equal(copy(1));
    expect(second.resident).to.equal(undefined);
    residents.remember('a', copy(2));
    expect(residents.size, 'two drains ran: neither may leave a copy').to.equal(0);
    second.release();
    first.release();
    expect(drain(residents, 'a', copy(3))).to.equal(undefined);
  });

  it('keeps about 64 MB by default, for five minutes idle', () => {
    expect(DEFAULT_RESIDENT_BOUNDS).to.deep.equal({ memoryBytes: 64 * 1024 ** 2, idleMs: 300_000 });
    const residents = residentsWithin({});
    const one = sizeOf(copy(1));
    const fit = Math.floor(DEFAULT_RESIDENT_BOUNDS.memoryBytes / one);
    for (let i = 0; i < fit + 10; i++) drain(residents, `k${i}`, copy(1));
    expect(residents.size).to.equal(fit);
  });
});
