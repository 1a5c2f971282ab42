/**
 * The arithmetic of the meta tools on small hand-made fixtures. Every expected number is worked out
 * in the comment next to it, so a reader can check it without running anything.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { adoptionOf, cardUse, colorsOf, fitsColors, topAdopted } from '../../../actors/meta/coaching-context.js';
import { colorSubsets, type ListSample } from '../../../actors/meta/meta-queries.js';
import {
  MIN_MATCHES,
  archetypeId,
  archetypeRecords,
  archetypeShares,
  matchupMatrix,
  normalizeColorIdentity,
  winRate,
  type DeckTally,
  type MatchRecord,
  type MatchTally,
} from '../../../actors/meta/meta-stats.js';
import { currentWindow, dateOf, dateRange, dayOf, inWindow, windowBefore } from '../../../actors/meta/time-window.js';

const record = (matches: number, wins: number, losses: number, draws: number): MatchRecord => ({ matches, wins, losses, draws });
const DAY_MS = 24 * 60 * 60 * 1000;

describe('meta-stats: winRate', () => {
  it('needs at least MIN_MATCHES (3) matches', () => {
    expect(MIN_MATCHES).to.equal(3);
    expect(winRate(record(0, 0, 0, 0))).to.equal(null);
    expect(winRate(record(2, 2, 0, 0))).to.equal(null); // 2 < 3
    expect(winRate(record(3, 2, 1, 0))).to.equal(66.7); // 2 / 3 = 66.66.. -> 66.7
  });

  it('counts draws as matches played but not as decided', () => {
    // 3 matches (1 win, 2 draws): enough matches; decided = 1 -> 1/1 = 100
    expect(winRate(record(3, 1, 0, 2))).to.equal(100);
    // 4 matches (1-1-2): decided = 2 -> 1/2 = 50
    expect(winRate(record(4, 1, 1, 2))).to.equal(50);
    // 7 matches (1-5-1): decided = 6 -> 100/6 = 16.66.. -> 16.7
    expect(winRate(record(7, 1, 5, 1))).to.equal(16.7);
    // only draws: nothing decided, no percentage
    expect(winRate(record(3, 0, 0, 3))).to.equal(null);
    expect(winRate(record(10, 0, 0, 10))).to.equal(null);
  });

  it('rounds to one decimal', () => {
    expect(winRate(record(3, 1, 2, 0))).to.equal(33.3); // 33.33..
    expect(winRate(record(16, 1, 15, 0))).to.equal(6.3); // 6.25 -> 6.3 (half rounds up)
    expect(winRate(record(8, 1, 7, 0))).to.equal(12.5); // exact
    expect(winRate(record(9, 2, 7, 0))).to.equal(22.2); // 22.22..
    expect(winRate(record(5, 0, 5, 0))).to.equal(0);
    expect(winRate(record(5, 5, 0, 0))).to.equal(100);
  });
});

/**
 * Tallies used by the record and matrix tests:
 *
 *   A vs B    p1    x2   A: 2 W            B: 2 L
 *   B vs A    draw  x1   A: 1 D            B: 1 D
 *   A vs A    p1    x3   mirror: records skip it; matrix A/A: 3 matches, 3 W, 3 L
 *   A vs -    p2    x1   A: 1 L (opponent without a list)
 *   - vs C    p1    x1   C: 1 L
 *   - vs -    draw  x1   nobody
 *   C vs B    p2    x4   C: 4 L            B: 4 W
 *   D vs D    draw  x2   mirror only: no record for D; matrix D/D: 2 matches, 2 D
 */
const TALLIES: MatchTally[] = [
  { deck1: 'A', deck2: 'B', result: 'p1', count: 2 },
  { deck1: 'B', deck2: 'A', result: 'draw', count: 1 },
  { deck1: 'A', deck2: 'A', result: 'p1', count: 3 },
  { deck1: 'A', deck2: null, result: 'p2', count: 1 },
  { deck1: null, deck2: 'C', result: 'p1', count: 1 },
  { deck1: null, deck2: null, result: 'draw', count: 1 },
  { deck1: 'C', deck2: 'B', result: 'p2', count: 4 },
  { deck1: 'D', deck2: 'D', result: 'draw', count: 2 },
];

describe('meta-stats: archetypeRecords', () => {
  const records = archetypeRecords(TALLIES);

  it('adds both sides of every match, leaving mirrors out', () => {
    // A: 2 W (vs B) + 1 D (vs B) + 1 L (vs no list) = 4 matches; the 3 mirrors are not counted
    expect(records.get('A')).to.deep.equal(record(4, 2, 1, 1));
    // B: 2 L (vs A) + 1 D (vs A) + 4 W (vs C) = 7 matches
    expect(records.get('B')).to.deep.equal(record(7, 4, 2, 1));
    // C: 1 L (vs no list, which won as p1) + 4 L (vs B) = 5 matches
    expect(records.get('C')).to.deep.equal(record(5, 0, 5, 0));
    expect(winRate(records.get('A')!)).to.equal(66.7); // 2 / 3 decided
    expect(winRate(records.get('B')!)).to.equal(66.7); // 4 / 6
    expect(winRate(records.get('C')!)).to.equal(0); // 0 / 5
  });

  it('has no record for an archetype that only played mirrors, nor for players without a list', () => {
    expect([...records.keys()].sort()).to.deep.equal(['A', 'B', 'C']);
  });

  it('counts a one-sided match for the known side only, whichever side it is', () => {
    const oneSided = archetypeRecords([
      { deck1: 'X', deck2: null, result: 'p1', count: 2 }, // X: 2 W
      { deck1: null, deck2: 'X', result: 'p1', count: 1 }, // X (p2) lost: 1 L
      { deck1: null, deck2: 'X', result: 'draw', count: 1 }, // X: 1 D
    ]);
    expect([...oneSided]).to.deep.equal([['X', record(4, 2, 1, 1)]]);
  });

  it('is empty for no tallies', () => {
    expect(archetypeRecords([]).size).to.equal(0);
  });
});

describe('meta-stats: matchupMatrix', () => {
  const matrix = matchupMatrix(TALLIES);
  const cell = (row: string, column: string) => matrix.get(row)?.get(column);

  it('records both directions of a pair', () => {
    // A vs B: 2 A wins + 1 draw -> A row: 3 matches, 2-0-1; B row: 3 matches, 0-2-1
    expect(cell('A', 'B')).to.deep.equal(record(3, 2, 0, 1));
    expect(cell('B', 'A')).to.deep.equal(record(3, 0, 2, 1));
    // C vs B: B won 4 times as p2
    expect(cell('C', 'B')).to.deep.equal(record(4, 0, 4, 0));
    expect(cell('B', 'C')).to.deep.equal(record(4, 4, 0, 0));
  });

  it('makes a mirror its own cell: one match is one win and one loss, draws stay draws', () => {
    // 3 decided mirror matches -> 3 matches, 3 W and 3 L
    expect(cell('A', 'A')).to.deep.equal(record(3, 3, 3, 0));
    expect(winRate(cell('A', 'A')!)).to.equal(50);
    // 2 drawn mirrors -> 2 matches, 2 D
    expect(cell('D', 'D')).to.deep.equal(record(2, 0, 0, 2));
  });

  it('leaves out matches against a player without a list', () => {
    expect([...matrix.keys()].sort()).to.deep.equal(['A', 'B', 'C', 'D']);
    expect([...matrix.get('A')!.keys()].sort()).to.deep.equal(['A', 'B']);
    expect([...matrix.get('C')!.keys()]).to.deep.equal(['B']);
    expect([...matrix.get('D')!.keys()]).to.deep.equal(['D']);
    expect(cell('A', 'C')).to.equal(undefined);
  });

  it('agrees with archetypeRecords once mirrors and one-sided matches are set aside', () => {
    // B never met a player without a list and has no mirror: its row sums to its record.
    const sum = [...matrix.get('B')!.values()].reduce((a, r) => record(a.matches + r.matches, a.wins + r.wins, a.losses + r.losses, a.draws + r.draws), record(0, 0, 0, 0));
    expect(sum).to.deep.equal(archetypeRecords(TALLIES).get('B'));
  });
});

describe('meta-stats: archetypeShares', () => {
  /**
   * 12 decks:  Burn 3 + 1 (R, two dates) = 4; Izzet 3 UR + 1 UBR = 4; Amulet 1 G + 1 RG = 2; Tron 2 C.
   * Shares: 4/12 = 33.333 -> 33.33 (Burn, Izzet); 2/12 = 16.666 -> 16.67 (Amulet, Tron).
   * Order: 4 decks tie -> by name Burn, Izzet; 2 decks tie -> Amulet, Tron.
   * Colours: Burn R; Izzet UR (3 vs 1); Amulet G and RG tie 1-1 -> by name "G" < "RG" -> G; Tron C.
   */
  const tallies: DeckTally[] = [
    { archetype: 'Izzet', color: 'UR', count: 3 },
    { archetype: 'Izzet', color: 'UBR', count: 1 },
    { archetype: 'Tron', color: 'C', count: 2 },
    { archetype: 'Burn', color: 'R', count: 3 },
    { archetype: 'Amulet', color: 'RG', count: 1 },
    { archetype: 'Amulet', color: 'G', count: 1 },
    { archetype: 'Burn', color: 'R', count: 1 },
  ];

  it('computes shares in percent with 2 decimals, sorted by decks then name', () => {
    expect(archetypeShares(tallies)).to.deep.equal([
      { archetype: 'Burn', id: 'burn', color_identity: 'R', decks: 4, meta_share: 33.33 },
      { archetype: 'Izzet', id: 'izzet', color_identity: 'UR', decks: 4, meta_share: 33.33 },
      { archetype: 'Amulet', id: 'amulet', color_identity: 'G', decks: 2, meta_share: 16.67 },
      { archetype: 'Tron', id: 'tron', color_identity: 'C', decks: 2, meta_share: 16.67 },
    ]);
  });

  it('takes the most common colour as the colour identity, whatever the tally order', () => {
    // WR 2 vs R 3 -> R, then WR 4 vs R 3 -> WR
    expect(archetypeShares([{ archetype: 'Boros', color: 'WR', count: 2 }, { archetype: 'Boros', color: 'R', count: 3 }])[0].color_identity).to.equal('R');
    expect(archetypeShares([{ archetype: 'Boros', color: 'R', count: 3 }, { archetype: 'Boros', color: 'WR', count: 4 }])[0].color_identity).to.equal('WR');
  });

  it('rounds thirds and sevenths', () => {
    // 1/3 each -> 33.33; 1/7 -> 14.285.. -> 14.29, 6/7 -> 85.714.. -> 85.71
    expect(archetypeShares(['a', 'b', 'c'].map((archetype) => ({ archetype, color: 'C', count: 1 }))).map((s) => s.meta_share)).to.deep.equal([33.33, 33.33, 33.33]);
    expect(archetypeShares([{ archetype: 'x', color: 'U', count: 6 }, { archetype: 'y', color: 'U', count: 1 }]).map((s) => s.meta_share)).to.deep.equal([85.71, 14.29]);
    expect(archetypeShares([{ archetype: 'Solo', color: 'B', count: 5 }])).to.deep.equal([{ archetype: 'Solo', id: 'solo', color_identity: 'B', decks: 5, meta_share: 100 }]);
  });

  it('is empty for no decks', () => {
    expect(archetypeShares([])).to.deep.equal([]);
  });
});

describe('meta-stats: archetypeId', () => {
  it('makes lower-case, dash-separated, accent-free ids', () => {
    expect(archetypeId('Boros Energy')).to.equal('boros-energy');
    expect(archetypeId('Unknown (UR)')).to.equal('unknown-ur');
    expect(archetypeId("Lim-Dûl's Vault Combo")).to.equal('lim-dul-s-vault-combo');
    expect(archetypeId('Éowyn  Control')).to.equal('eowyn-control');
    expect(archetypeId('  Mono-Red Aggro! ')).to.equal('mono-red-aggro');
    expect(archetypeId('4/5c Omnath')).to.equal('4-5c-omnath');
  });
});

describe('meta-stats: normalizeColorIdentity', () => {
  it('puts colour letters in WUBRG order, any case, with separators', () => {
    expect(normalizeColorIdentity('ur')).to.equal('UR');
    expect(normalizeColorIdentity('RU')).to.equal('UR');
    expect(normalizeColorIdentity('u/r')).to.equal('UR');
    expect(normalizeColorIdentity(' gw ')).to.equal('WG');
    expect(normalizeColorIdentity('GRBUW')).to.equal('WUBRG');
    expect(normalizeColorIdentity('b')).to.equal('B');
  });

  it('reads colourless as C', () => {
    for (const text of ['c', 'C', 'colorless', 'Colourless', ' COLORLESS ']) expect(normalizeColorIdentity(text), text).to.equal('C');
  });

  it('is undefined for anything that is not a colour combination', () => {
    for (const text of ['', '  ', 'x', 'UX', 'blue', 'purple', '123', 'CU', 'UU', 'URu', 'wubrgw']) expect(normalizeColorIdentity(text), JSON.stringify(text)).to.equal(undefined);
  });
});

describe('time-window', () => {
  it('ends the current window on the newest day, both ends included', () => {
    // 2026-08-08 minus 29 days: 8 days back to 07-31, 21 more to 07-10; 07-10..07-31 (22) + 08-01..08-08 (8) = 30 days
    expect(currentWindow('2026-08-08', 30)).to.deep.equal({ start: '2026-07-10', end: '2026-08-08', days: 30 });
    expect(currentWindow('2026-08-08', 1)).to.deep.equal({ start: '2026-08-08', end: '2026-08-08', days: 1 });
    expect(currentWindow('2026-08-08', 2)).to.deep.equal({ start: '2026-08-07', end: '2026-08-08', days: 2 });
  });

  it('puts the previous window just before the current one, without overlap', () => {
    const current = currentWindow('2026-08-08', 30);
    // ends the day before 07-10 = 07-09; 07-09 minus 29 days = 06-10 (06-10..06-30 is 21, 07-01..07-09 is 9)
    expect(windowBefore(current, 30)).to.deep.equal({ start: '2026-06-10', end: '2026-07-09', days: 30 });
    // a different length: 7 days ending 07-09 -> 07-03..07-09
    expect(windowBefore(current, 7)).to.deep.equal({ start: '2026-07-03', end: '2026-07-09', days: 7 });
  });

  it('crosses month and year boundaries and leap days', () => {
    expect(currentWindow('2026-03-01', 2)).to.deep.equal({ start: '2026-02-28', end: '2026-03-01', days: 2 }); // 2026 is no leap year
    expect(currentWindow('2024-03-01', 2)).to.deep.equal({ start: '2024-02-29', end: '2024-03-01', days: 2 });
    // 01-03, 01-02, 01-01, 12-31, 12-30, 12-29, 12-28 = 7 days
    expect(currentWindow('2026-01-03', 7)).to.deep.equal({ start: '2025-12-28', end: '2026-01-03', days: 7 });
    expect(windowBefore({ start: '2026-03-01', end: '2026-03-10', days: 10 }, 1)).to.deep.equal({ start: '2026-02-28', end: '2026-02-28', days: 1 });
    // 14 days ending 2026-03-10 start 02-25 (02-25..02-28 is 4, 03-01..03-10 is 10); the 14 before: 02-11..02-24
    const current = currentWindow('2026-03-10', 14);
    expect(current).to.deep.equal({ start: '2026-02-25', end: '2026-03-10', days: 14 });
    expect(windowBefore(current, 14)).to.deep.equal({ start: '2026-02-11', end: '2026-02-24', days: 14 });
  });

  it('covers whole days: inWindow and dateRange include both ends and nothing outside', () => {
    const window = { start: '2026-02-25', end: '2026-03-10', days: 14 };
    expect(dateRange(window)).to.deep.equal({ $gte: new Date('2026-02-25T00:00:00Z'), $lte: new Date('2026-03-10T00:00:00Z') });
    expect(inWindow(dateOf('2026-02-25'), window)).to.equal(true);
    expect(inWindow(dateOf('2026-03-10'), window)).to.equal(true);
    expect(inWindow(dateOf('2026-02-24'), window)).to.equal(false);
    expect(inWindow(dateOf('2026-03-11'), window)).to.equal(false);
    expect(dayOf(dateOf('2026-02-28'))).to.equal('2026-02-28');
  });

  it('property: windows have exactly `days` days and the previous one ends the day before the current one starts', () => {
    const day = fc.integer({ min: Date.UTC(2000, 0, 1) / DAY_MS, max: Date.UTC(2040, 0, 1) / DAY_MS }).map((n) => dayOf(new Date(n * DAY_MS)));
    const length = fc.integer({ min: 1, max: 365 });
    fc.assert(
      fc.property(day, length, length, (newest, a, b) => {
        const current = currentWindow(newest, a);
        const previous = windowBefore(current, b);
        const span = (w: { start: string; end: string }) => (dateOf(w.end).getTime() - dateOf(w.start).getTime()) / DAY_MS + 1;
        expect(current.end).to.equal(newest);
        expect(span(current)).to.equal(a);
        expect(span(previous)).to.equal(b);
        expect(dateOf(current.start).getTime() - dateOf(previous.end).getTime()).to.equal(DAY_MS);
      }),
      { numRuns: 200 },
    );
  });
});

describe('meta-queries: colorSubsets', () => {
  it('lists every colour combination inside the colours, colourless first, each in WUBRG order', () => {
    expect(colorSubsets('C')).to.deep.equal(['C']);
    expect(colorSubsets('R')).to.deep.equal(['C', 'R']);
    expect(colorSubsets('UR')).to.deep.equal(['C', 'U', 'R', 'UR']);
    // masks 1..7 over W, U, B
    expect(colorSubsets('WUB')).to.deep.equal(['C', 'W', 'U', 'WU', 'B', 'WB', 'UB', 'WUB']);
    const five = colorSubsets('WUBRG');
    expect(five).to.have.length(32); // 2^5, with C standing for the empty set
    expect(new Set(five).size).to.equal(32);
    for (const subset of five) if (subset !== 'C') expect(normalizeColorIdentity(subset), subset).to.equal(subset);
  });
});

describe('coaching-context: colours and card adoption', () => {
  it('colorsOf joins colour identities in WUBRG order, C when there is none', () => {
    expect(colorsOf([['R'], ['U', 'R'], []])).to.equal('UR');
    expect(colorsOf([['G'], ['W']])).to.equal('WG');
    expect(colorsOf([['B', 'G', 'R', 'U', 'W']])).to.equal('WUBRG');
    expect(colorsOf([])).to.equal('C');
    expect(colorsOf([[], []])).to.equal('C');
  });

  it('fitsColors: a card fits when its identity is inside the colours; colourless fits all', () => {
    expect(fitsColors([], 'C')).to.equal(true);
    expect(fitsColors([], 'UR')).to.equal(true);
    expect(fitsColors(['R'], 'UR')).to.equal(true);
    expect(fitsColors(['U', 'R'], 'UR')).to.equal(true);
    expect(fitsColors(['U', 'R'], 'R')).to.equal(false);
    expect(fitsColors(['W'], 'C')).to.equal(false);
    expect(fitsColors(['B'], 'WUBRG')).to.equal(true);
  });

  const list = (id: number, mainboard: Array<[string, number]>, sideboard: Array<[string, number]> = []): ListSample => ({
    id,
    day: '2026-03-01',
    archetype: 'Izzet',
    color: 'UR',
    mainboard: mainboard.map(([card, count]) => ({ card, count })),
    sideboard: sideboard.map(([card, count]) => ({ card, count })),
  });
  /**
   * Three lists:
   *   main: Bolt 4/4/4, Counterspell 4/-/2, Consider -/1/-, Fury 3/1/-   side: Blood Moon 2/-/3, Fury -/-/1
   */
  const LISTS = [
    list(1, [['Lightning Bolt', 4], ['Counterspell', 4], ['Fury', 3]], [['Blood Moon', 2]]),
    list(2, [['Lightning Bolt', 4], ['Consider', 1], ['Fury', 1]]),
    list(3, [['Lightning Bolt', 4], ['Counterspell', 2]], [['Blood Moon', 3], ['Fury', 1]]),
  ];

  it('cardUse counts the lists playing a card and its copies, per board', () => {
    const main = cardUse(LISTS, 'mainboard');
    expect(Object.fromEntries(main)).to.deep.equal({
      'Lightning Bolt': { decks: 3, copies: 12 },
      Counterspell: { decks: 2, copies: 6 },
      Fury: { decks: 2, copies: 4 },
      Consider: { decks: 1, copies: 1 },
    });
    expect(Object.fromEntries(cardUse(LISTS, 'sideboard'))).to.deep.equal({ 'Blood Moon': { decks: 2, copies: 5 }, Fury: { decks: 1, copies: 1 } });
    expect(cardUse([], 'mainboard').size).to.equal(0);
  });

  it('adoptionOf: percent of lists (1 decimal) and copies per playing list (1 decimal)', () => {
    // 2 of 3 lists = 66.66.. -> 66.7; 6 copies / 2 lists = 3
    expect(adoptionOf('Counterspell', { decks: 2, copies: 6 }, 3)).to.deep.equal({ name: 'Counterspell', decks_pct: 66.7, average_copies: 3 });
    // 2 of 3, 5 copies / 2 = 2.5
    expect(adoptionOf('Blood Moon', { decks: 2, copies: 5 }, 3)).to.deep.equal({ name: 'Blood Moon', decks_pct: 66.7, average_copies: 2.5 });
    // 1 of 3 = 33.3; 11 copies / 3 lists = 3.66.. -> 3.7
    expect(adoptionOf('x', { decks: 3, copies: 11 }, 9)).to.deep.equal({ name: 'x', decks_pct: 33.3, average_copies: 3.7 });
    expect(adoptionOf('x', undefined, 3)).to.deep.equal({ name: 'x', decks_pct: 0, average_copies: 0 });
    expect(adoptionOf('x', { decks: 1, copies: 1 }, 0)).to.deep.equal({ name: 'x', decks_pct: 0, average_copies: 0 });
  });

  it('topAdopted ranks by lists, then copies, then name, and applies the limit and the filter', () => {
    const main = cardUse(LISTS, 'mainboard');
    // Bolt 3 lists; Counterspell and Fury 2 lists each, Counterspell has more copies (6 > 4); Consider 1
    expect(topAdopted(main, 3, 10)).to.deep.equal([
      { name: 'Lightning Bolt', decks_pct: 100, average_copies: 4 },
      { name: 'Counterspell', decks_pct: 66.7, average_copies: 3 },
      { name: 'Fury', decks_pct: 66.7, average_copies: 2 },
      { name: 'Consider', decks_pct: 33.3, average_copies: 1 },
    ]);
    expect(topAdopted(main, 3, 2).map((a) => a.name)).to.deep.equal(['Lightning Bolt', 'Counterspell']);
    expect(topAdopted(main, 3, 10, (name) => name !== 'Lightning Bolt').map((a) => a.name)).to.deep.equal(['Counterspell', 'Fury', 'Consider']);
    // equal lists and copies: by name
    const tie = new Map([['b', { decks: 1, copies: 2 }], ['a', { decks: 1, copies: 2 }]]);
    expect(topAdopted(tie, 2, 5).map((a) => a.name)).to.deep.equal(['a', 'b']);
  });
});
