/**
 * The game's PRNG: sfc32, whose whole state is four 32-bit integers kept in the game state (`state.rng`),
 * so a game saved as JSON and loaded again continues the same random stream.
 */

export type RngState = number[];

/** Hashes a string seed to 32 bits (FNV-1a), so "game-42" and 42 are both usable seeds. */
export function seedToInt(seed: number | string): number {
  if (typeof seed === 'number' && Number.isFinite(seed)) return Math.trunc(seed) | 0;
  const text = String(seed);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Expands a 32-bit seed into sfc32 state with splitmix32, then discards the first outputs to mix. */
export function createRng(seed: number): RngState {
  let s = seed | 0;
  const split = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) | 0;
  };
  const rng = [split(), split(), split(), split()];
  for (let i = 0; i < 12; i++) nextUint32(rng);
  return rng;
}

export function nextUint32(r: RngState): number {
  let a = r[0], b = r[1], c = r[2], d = r[3];
  const t = (((a + b) | 0) + d) | 0;
  d = (d + 1) | 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) | 0;
  c = (c << 21) | (c >>> 11);
  c = (c + t) | 0;
  r[0] = a; r[1] = b; r[2] = c; r[3] = d;
  return t >>> 0;
}

/** A uniform integer in [0, n). */
export function randomIndex(r: RngState, n: number): number {
  return Math.floor((nextUint32(r) / 4294967296) * n);
}

/** Fisher–Yates in place; the generator is inlined because shuffling is the engine's hottest loop. */
export function shuffleInPlace(r: RngState, cards: number[]): void {
  let a = r[0], b = r[1], c = r[2], d = r[3];
  for (let i = cards.length - 1; i > 0; i--) {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    const j = Math.floor(((t >>> 0) / 4294967296) * (i + 1));
    const x = cards[i];
    cards[i] = cards[j];
    cards[j] = x;
  }
  r[0] = a; r[1] = b; r[2] = c; r[3] = d;
}
