/** Action cards with nothing to choose: their effects resolve at once. */
import { CURSE } from '../cards.js';
import type { GameState } from '../state.js';
import { draw, gain } from '../zones.js';

export function village(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 2;
}

export function smithy(s: GameState, p: number): void {
  draw(s, p, 3);
}

export function laboratory(s: GameState, p: number): void {
  draw(s, p, 2);
  s.actions += 1;
}

export function market(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 1;
  s.buys += 1;
  s.coins += 1;
}

export function festival(s: GameState): void {
  s.actions += 2;
  s.buys += 1;
  s.coins += 2;
}

export function woodcutter(s: GameState): void {
  s.buys += 1;
  s.coins += 2;
}

export function moat(s: GameState, p: number): void {
  draw(s, p, 2);
}

/** The +$1 is paid when the first Silver is played (turn.ts), once per Merchant played before it. */
export function merchant(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 1;
  if (!s.silverPlayed) s.merchants += 1;
}

/** Not an Attack: the other players' draws are not blocked by Moat. */
export function councilRoom(s: GameState, p: number): void {
  draw(s, p, 4);
  s.buys += 1;
  const n = s.players.length;
  for (let i = 1; i < n; i++) draw(s, (p + i) % n, 1);
}

/** The Attack part of Witch (after Moat reveals): Curses in turn order while they last. */
export function witchAttack(s: GameState, p: number): void {
  draw(s, p, 2);
  const n = s.players.length;
  for (let i = 1; i < n; i++) {
    const victim = (p + i) % n;
    if ((s.immune >> victim) & 1) continue;
    gain(s, victim, CURSE, 'discard');
  }
}
