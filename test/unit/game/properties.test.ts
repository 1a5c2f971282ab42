/** Property tests over random games: no deadlock, conservation, round trips, determinism, plain JSON. */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  applyMove, CARD_NAMES, createGame, legalMoves, MOVE_SHAPES, MOVE_TYPES, playerToMove, type GameState, type Move,
} from '../../../actors/game/engine/index.js';
import { formatCommand, optionsFor, parseCommand } from '../../../actors/game/options/index.js';
import { BOTS, createRandomBot } from '../../../actors/game/bots/index.js';
import { simulateGame } from '../../../actors/game/simulate.js';
import { totalCards } from './fixtures.js';

const editions = ['2e', '1e', 'mixed'] as const;

/** Plays uniformly random legal moves; calls `visit` on every state reached. */
function randomGame(seed: number, players: number, edition: (typeof editions)[number], maxMoves: number, visit: (s: GameState, moveNo: number) => void): { state: GameState; moves: Array<[number, Move]> } {
  const created = createGame({ players, seed, kingdom: 'random', edition });
  if (!created.ok) throw new Error(created.error.message);
  let s = created.state;
  const bot = createRandomBot(seed * 31 + 7);
  const moves: Array<[number, Move]> = [];
  visit(s, 0);
  while (s.phase !== 'over' && moves.length < maxMoves) {
    const p = playerToMove(s)!;
    const legal = legalMoves(s, p);
    if (legal.length === 0) throw new Error(`deadlock: player ${p} has no legal move (stack ${JSON.stringify(s.stack)})`);
    const move = bot(s, p);
    const r = applyMove(s, p, move);
    if (!r.ok) throw new Error(`listed move rejected: ${JSON.stringify(move)}: ${r.error.message}`);
    moves.push([p, move]);
    s = r.state;
    visit(s, moves.length);
  }
  return { state: s, moves };
}

const gameArb = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  players: fc.integer({ min: 2, max: 4 }),
  edition: fc.constantFrom(...editions),
});

describe('engine properties (fast-check)', () => {
  it('random legal play never deadlocks or throws, and conserves every card', () => {
    fc.assert(
      fc.property(gameArb, ({ seed, players, edition }) => {
        let total = -1;
        randomGame(seed, players, edition, 1500, (s) => {
          const t = totalCards(s);
          if (total < 0) total = t;
          expect(t).to.equal(total);
          for (let p = 0; p < players; p++) if (p !== playerToMove(s)) expect(legalMoves(s, p)).to.deep.equal([]);
          // A decision is only posed when there is a real choice.
          if (s.stack.length > 0) expect(legalMoves(s, playerToMove(s)!).length).to.be.at.least(2);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('every option\'s command (and its number) parses back to exactly its move', () => {
    fc.assert(
      fc.property(gameArb, ({ seed, players, edition }) => {
        randomGame(seed, players, edition, 400, (s, n) => {
          const p = playerToMove(s);
          if (p === null) return;
          const options = optionsFor(s, p);
          expect(options.length).to.be.greaterThan(0);
          for (const o of options) {
            expect(o.command).to.equal(formatCommand(o.move));
            expect(parseCommand(s, p, o.command)).to.deep.equal({ ok: true, move: o.move });
          }
          const pick = options[n % options.length];
          expect(parseCommand(s, p, `select ${pick.index}`)).to.deep.equal({ ok: true, move: pick.move });
        });
      }),
      { numRuns: 40 },
    );
  });

  it('replaying seed + moves gives the same game; a JSON round trip mid-game changes nothing', () => {
    fc.assert(
      fc.property(gameArb, fc.integer({ min: 0, max: 300 }), ({ seed, players, edition }, cut) => {
        const { state: final, moves } = randomGame(seed, players, edition, 600, () => {});
        const created = createGame({ players, seed, kingdom: 'random', edition });
        if (!created.ok) throw new Error();
        let s = created.state;
        moves.forEach(([p, m], i) => {
          if (i === Math.min(cut, moves.length - 1)) {
            const copy = JSON.parse(JSON.stringify(s)) as GameState;
            expect(copy).to.deep.equal(s);
            s = copy;
          }
          const r = applyMove(s, p, m);
          if (!r.ok) throw new Error(r.error.message);
          s = r.state;
        });
        expect(s).to.deep.equal(final);
        expect(JSON.parse(JSON.stringify(final))).to.deep.equal(final);
      }),
      { numRuns: 30 },
    );
  });

  it('arbitrary moves are either legal (and listed) or rejected without touching the state', () => {
    const moveArb = fc.record({
      type: fc.constantFrom(...MOVE_TYPES),
      card: fc.constantFrom(...CARD_NAMES, null),
      choice: fc.boolean(),
      player: fc.integer({ min: 0, max: 3 }),
    }).map(({ type, card, choice, player }) => {
      const shape = MOVE_SHAPES[type];
      const move = (shape === 'none' ? { type } : shape === 'choice' ? { type, choice } : { type, card: shape === 'card' && card === null ? 'Copper' : card }) as Move;
      return { move, player };
    });
    fc.assert(
      fc.property(gameArb, fc.array(moveArb, { minLength: 20, maxLength: 20 }), ({ seed, players, edition }, probes) => {
        randomGame(seed, players, edition, 200, (s, n) => {
          const { move, player } = probes[n % probes.length];
          const before = JSON.stringify(s);
          const r = applyMove(s, player, move);
          const listed = legalMoves(s, player).some((m) => JSON.stringify(m) === JSON.stringify(move));
          expect(r.ok, `${JSON.stringify(move)} by ${player}: ${r.ok ? 'accepted' : r.error.message}`).to.equal(listed);
          expect(JSON.stringify(s)).to.equal(before);
        });
      }),
      { numRuns: 20 },
    );
  });

  it('strategy bots mixed with random players on random kingdoms: conservation and plain JSON throughout', () => {
    const names = Object.keys(BOTS) as Array<keyof typeof BOTS>;
    fc.assert(
      fc.property(gameArb, fc.array(fc.integer({ min: 0, max: names.length }), { minLength: 4, maxLength: 4 }), ({ seed, players, edition }, seats) => {
        const bots = seats.slice(0, players).map((i, k) => (i === names.length ? createRandomBot(seed + k) : BOTS[names[i]]));
        const created = createGame({ players, seed, kingdom: 'random', edition, turnLimit: 60 });
        if (!created.ok) throw new Error();
        let s = created.state;
        const total = totalCards(s);
        for (let n = 0; s.phase !== 'over'; n++) {
          const p = playerToMove(s)!;
          const r = applyMove(s, p, bots[p](s, p));
          if (!r.ok) throw new Error(r.error.message);
          s = r.state;
          expect(totalCards(s)).to.equal(total);
          if (n % 50 === 0) expect(JSON.parse(JSON.stringify(s))).to.deep.equal(s);
        }
        expect(s.result!.winners.length).to.be.at.least(1);
      }),
      { numRuns: 60 },
    );
  });

  it('whole bot games are deterministic per seed', () => {
    fc.assert(
      fc.property(gameArb, ({ seed, players, edition }) => {
        const bots = Array.from({ length: players }, (_, i) => createRandomBot(seed + i));
        const again = Array.from({ length: players }, (_, i) => createRandomBot(seed + i));
        const a = simulateGame({ seed, bots, kingdom: 'random', edition, turnLimit: 40 });
        const b = simulateGame({ seed, bots: again, kingdom: 'random', edition, turnLimit: 40 });
        expect(b.state).to.deep.equal(a.state);
        expect(b.result).to.deep.equal(a.result);
      }),
      { numRuns: 20 },
    );
  });
});
