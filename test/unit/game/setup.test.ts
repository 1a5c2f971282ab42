import { expect } from 'chai';
import {
  createGame, CARD_NAMES, KINGDOM_CARD_NAMES, PRESET_NAMES, KINGDOM_PRESETS, EDITION_CARD_NAMES, observe, type CardName,
} from '../../../actors/game/engine/index.js';
import { sorted } from './fixtures.js';

function created(config: Parameters<typeof createGame>[0]) {
  const r = createGame(config);
  if (!r.ok) throw new Error(r.error.message);
  return r.state;
}

describe('game setup (engine/setup.ts)', () => {
  it('deals 7 Copper + 3 Estate to each player and draws 5', () => {
    const s = created({ players: 3, seed: 7 });
    for (const pl of s.players) {
      expect(pl.hand).to.have.length(5);
      expect(pl.deck).to.have.length(5);
      expect(sorted([...pl.hand, ...pl.deck])).to.deep.equal([...Array(7).fill('Copper'), 'Estate', 'Estate', 'Estate']);
    }
  });

  for (const [players, victory, curses, coppers] of [[2, 8, 10, 46], [3, 12, 20, 39], [4, 12, 30, 32]] as const) {
    it(`uses the official pile sizes for ${players} players`, () => {
      const s = created({ players, seed: 1, kingdom: ['Gardens', 'Cellar', 'Chapel', 'Moat', 'Village', 'Smithy', 'Witch', 'Mine', 'Market', 'Library'] });
      const supply = observe(s, null).supply;
      expect(supply.Copper).to.equal(coppers);
      expect(supply.Silver).to.equal(40);
      expect(supply.Gold).to.equal(30);
      expect(supply.Estate).to.equal(victory);
      expect(supply.Duchy).to.equal(victory);
      expect(supply.Province).to.equal(victory);
      expect(supply.Curse).to.equal(curses);
      expect(supply.Gardens).to.equal(victory);
      expect(supply.Smithy).to.equal(10);
    });
  }

  it('defaults to the 2E "First Game" kingdom', () => {
    const s = created({ players: 2, seed: 1 });
    expect(s.preset).to.equal('First Game');
    expect(observe(s, null).kingdom.slice().sort()).to.deep.equal(['Cellar', 'Market', 'Merchant', 'Militia', 'Mine', 'Moat', 'Remodel', 'Smithy', 'Village', 'Workshop']);
  });

  it('accepts every preset by name, case-insensitively', () => {
    for (const name of PRESET_NAMES) {
      const s = created({ players: 2, seed: 1, kingdom: name.toUpperCase() });
      expect(s.preset).to.equal(name);
      expect(s.kingdom).to.have.length(10);
      expect(observe(s, null).kingdom.slice().sort()).to.deep.equal([...KINGDOM_PRESETS[name].cards].sort());
    }
  });

  it('validates explicit kingdoms against the edition', () => {
    const tenOf2e = EDITION_CARD_NAMES['2e'].slice(0, 10);
    expect(createGame({ players: 2, seed: 1, kingdom: tenOf2e, edition: '2e' }).ok).to.equal(true);
    const with1e = [...tenOf2e.slice(0, 9), 'Adventurer'];
    const r = createGame({ players: 2, seed: 1, kingdom: with1e, edition: '2e' });
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.error.code).to.equal('bad_kingdom');
    expect(createGame({ players: 2, seed: 1, kingdom: with1e }).ok).to.equal(true);
    const dup = createGame({ players: 2, seed: 1, kingdom: [...tenOf2e.slice(0, 9), tenOf2e[0]] });
    expect(dup.ok).to.equal(false);
    const unknown = createGame({ players: 2, seed: 1, kingdom: [...tenOf2e.slice(0, 9), 'Goons'] });
    expect(!unknown.ok && unknown.error.code).to.equal('unknown_card');
    const nine = createGame({ players: 2, seed: 1, kingdom: tenOf2e.slice(0, 9) });
    expect(!nine.ok && nine.error.code).to.equal('bad_kingdom');
    const preset = createGame({ players: 2, seed: 1, kingdom: 'No Such Preset' });
    expect(!preset.ok && preset.error.code).to.equal('unknown_preset');
  });

  it('draws random kingdoms from the edition pool, reproducibly from the seed', () => {
    for (const edition of ['2e', '1e', 'mixed'] as const) {
      for (let seed = 0; seed < 30; seed++) {
        const s = created({ players: 2, seed, kingdom: 'random', edition });
        const names = observe(s, null).kingdom;
        expect(new Set(names).size).to.equal(10);
        for (const n of names) expect(EDITION_CARD_NAMES[edition]).to.include(n);
        expect(created({ players: 2, seed, kingdom: 'random', edition }).kingdom).to.deep.equal(s.kingdom);
      }
    }
    expect(EDITION_CARD_NAMES['2e']).to.have.length(26);
    expect(EDITION_CARD_NAMES['1e']).to.have.length(25);
    expect(EDITION_CARD_NAMES.mixed).to.have.length(32);
    expect(KINGDOM_CARD_NAMES).to.have.length(32);
    expect(CARD_NAMES).to.have.length(39);
  });

  it('rejects bad player counts and options', () => {
    for (const players of [0, 1, 5, 2.5]) expect(createGame({ players, seed: 1 }).ok).to.equal(false);
    expect(createGame({ players: 2, seed: 1, firstPlayer: 2 }).ok).to.equal(false);
    expect(createGame({ players: 2, seed: 1, edition: '3e' as never }).ok).to.equal(false);
    expect(createGame({ players: 2, seed: 1, turnLimit: -1 }).ok).to.equal(false);
  });

  it('picks the first player from the seed unless told, and string seeds work', () => {
    const firsts = new Set<number>();
    for (let seed = 0; seed < 40; seed++) firsts.add(created({ players: 4, seed }).current);
    expect(firsts.size).to.be.greaterThan(1);
    expect(created({ players: 3, seed: 'abc', firstPlayer: 2 }).current).to.equal(2);
    expect(created({ players: 2, seed: 'abc' })).to.deep.equal(created({ players: 2, seed: 'abc' }));
    expect(created({ players: 2, seed: 'abc' })).to.not.deep.equal(created({ players: 2, seed: 'abd' }));
  });

  it('is plain JSON from the start', () => {
    const s = created({ players: 4, seed: 3, kingdom: 'random', edition: 'mixed' });
    expect(JSON.parse(JSON.stringify(s))).to.deep.equal(s);
  });

  it('exports card and preset lists the API can validate against', () => {
    const names: readonly CardName[] = CARD_NAMES;
    expect(names).to.include('Throne Room');
    expect(PRESET_NAMES).to.include('First Game');
  });
});
