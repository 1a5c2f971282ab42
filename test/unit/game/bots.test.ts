import { expect } from 'chai';
import { BOTS, BOT_NAMES, createRandomBot, isBotName, type Bot } from '../../../actors/game/bots/index.js';
import { simulateGame, simulateSolo } from '../../../actors/game/simulate.js';
import { stepInPlace } from '../../../actors/game/engine/step.js';
import { createGame, legalMoves, playerToMove, type CardName } from '../../../actors/game/engine/index.js';
import { GOLD, PROVINCE, SMITHY } from '../../../actors/game/engine/cards.js';
import { gameWith, totalCards } from './fixtures.js';

const editions = ['2e', '1e', 'mixed'] as const;

describe('bots (actors/game/bots) and simulate.ts', () => {
  it('every bot plays whole games on random kingdoms of every edition, 2–4 players, always legally', () => {
    const all: Bot[] = BOT_NAMES.map((n) => BOTS[n]);
    for (let g = 0; g < 150; g++) {
      const players = 2 + (g % 3);
      const bots = Array.from({ length: players }, (_, i) => (i === 0 && g % 5 === 0 ? createRandomBot(g) : all[(g + i) % all.length]));
      const created = createGame({ players, seed: `bots-${g}`, kingdom: 'random', edition: editions[g % 3], turnLimit: 80 });
      if (!created.ok) throw new Error();
      const s = created.state;
      const total = totalCards(s);
      while (s.phase !== 'over') {
        const p = playerToMove(s)!;
        const move = bots[p](s, p);
        const listed = legalMoves(s, p).some((m) => JSON.stringify(m) === JSON.stringify(move));
        expect(listed, `game ${g}: ${JSON.stringify(move)} not legal; pending ${JSON.stringify(s.stack.at(-1))}`).to.equal(true);
        expect(stepInPlace(s, p, move)).to.equal(null);
      }
      expect(totalCards(s)).to.equal(total);
    }
  });

  it('bots answer attacks: Militia discards, Moat reveals, Bureaucrat topdecks, Thief/Spy/Bandit choices', () => {
    const kingdom: CardName[] = ['Militia', 'Moat', 'Bureaucrat', 'Thief', 'Spy', 'Bandit', 'Witch', 'Throne Room', 'Library', 'Sentry'];
    for (let g = 0; g < 40; g++) {
      const r = simulateGame({ seed: `attack-${g}`, bots: [BOTS.engine, BOTS.witch, BOTS['smithy-bm']], kingdom, turnLimit: 60 });
      expect(r.result.scores).to.have.length(3);
    }
  });

  it('BMU buys by its ladder: Gold with $8 until total money > 18, then Province', () => {
    const poor = gameWith({ kingdom: 'First Game' });
    poor.coins = 8;
    poor.phase = 'buy';
    poor.players[0].hand = [];
    poor.players[0].deck = [];
    poor.players[0].discard = [GOLD, GOLD, GOLD, GOLD, GOLD, GOLD];
    expect(BOTS.bmu(poor, 0)).to.deep.equal({ type: 'buy', card: 'Gold' });
    poor.players[0].discard.push(GOLD);
    expect(BOTS.bmu(poor, 0)).to.deep.equal({ type: 'buy', card: 'Province' });
    poor.coins = 5;
    poor.supply[PROVINCE] = 4;
    expect(BOTS.bmu(poor, 0)).to.deep.equal({ type: 'buy', card: 'Duchy' });
    poor.coins = 2;
    poor.supply[PROVINCE] = 2;
    expect(BOTS.bmu(poor, 0)).to.deep.equal({ type: 'buy', card: 'Estate' });
    poor.coins = 1;
    expect(BOTS.bmu(poor, 0)).to.deep.equal({ type: 'end_turn' });
  });

  it('Smithy-BM buys one Smithy early and plays it', () => {
    const s = gameWith({ kingdom: 'First Game' });
    s.coins = 4;
    s.phase = 'buy';
    s.players[0].hand = [];
    expect(BOTS['smithy-bm'](s, 0)).to.deep.equal({ type: 'buy', card: 'Smithy' });
    s.players[0].discard = [SMITHY];
    expect(BOTS['smithy-bm'](s, 0)).to.deep.equal({ type: 'buy', card: 'Silver' });
    const t = gameWith({ kingdom: 'First Game', hands: [['Smithy', 'Copper', 'Copper', 'Copper', 'Estate']] });
    expect(BOTS['smithy-bm'](t, 0)).to.deep.equal({ type: 'play_action', card: 'Smithy' });
  });

  it('Smithy-BM beats BMU more often than not; Witch beats BMU when Witch is on the table', () => {
    let smithyWins = 0, witchWins = 0;
    const games = 300;
    for (let i = 0; i < games; i++) {
      const a = simulateGame({ seed: `h2h-${i}`, bots: [BOTS['smithy-bm'], BOTS.bmu], firstPlayer: i % 2 });
      if (a.result.winners.length === 1 && a.result.winners[0] === 0) smithyWins++;
      const b = simulateGame({ seed: `witch-${i}`, bots: [BOTS.witch, BOTS.bmu], firstPlayer: i % 2, kingdom: 'Size Distortion' });
      if (b.result.winners.length === 1 && b.result.winners[0] === 0) witchWins++;
    }
    expect(smithyWins / games).to.be.greaterThan(0.5);
    expect(witchWins / games).to.be.greaterThan(0.5);
  });

  it('solo pace is in the published range (Big Money about 17 turns to 4 Provinces)', () => {
    let sum = 0;
    const games = 300;
    for (let i = 0; i < games; i++) sum += simulateSolo({ seed: i, bot: BOTS['big-money'] }) ?? 60;
    expect(sum / games).to.be.within(15, 19);
  });

  it('names bots for the API', () => {
    expect(BOT_NAMES).to.include.members(['bmu', 'smithy-bm', 'engine', 'witch', 'big-money']);
    expect(isBotName('bmu')).to.equal(true);
    expect(isBotName('toString')).to.equal(false);
  });
});
