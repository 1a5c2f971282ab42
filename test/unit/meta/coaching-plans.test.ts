/**
 * The pure planners behind optimize_mainboard and optimize_sideboard, on hand-made lists with the
 * expected numbers worked out in comments, plus fast-check properties on random small fixtures.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { BASIC_LANDS, addLists, emptyAdoption, fitsColors, type ListsAdoption } from '../../../actors/meta/coaching-context.js';
import { FLEX_BELOW_PCT, mainboardPlan, topArchetypeAdoption, type MainboardPlanInput, type TopArchetype } from '../../../actors/meta/mainboard-optimizer.js';
import type { ListSample } from '../../../actors/meta/meta-queries.js';
import { KEEP_AT_PCT, SIDEBOARD_SIZE, sideboardPlan, type SideboardPlanInput } from '../../../actors/meta/sideboard-optimizer.js';
import { RequestError } from '../../../actors/runtime/contract.js';

interface Facts {
  color_identity: string[];
  is_land: boolean;
  mana_cost: string | null;
  type_line: string | null;
}

/** [name, colour identity, is a land] of every card the lookup knows. */
const POOL: Array<[string, string[], boolean]> = [
  ['Lightning Bolt', ['R'], false],
  ['Counterspell', ['U'], false],
  ['Expressive Iteration', ['U', 'R'], false],
  ['Ragavan, Nimble Pilferer', ['R'], false],
  ["Dragon's Rage Channeler", ['R'], false],
  ['Murktide Regent', ['U'], false],
  ['Unholy Heat', ['R'], false],
  ['Consider', ['U'], false],
  ['Fury', ['R'], false],
  ['Subtlety', ['U'], false],
  ['Lava Spike', ['R'], false],
  ['Fatal Push', ['B'], false],
  ['Thoughtseize', ['B'], false],
  ['Teferi, Time Raveler', ['W', 'U'], false],
  ['Tarmogoyf', ['G'], false],
  ['Omnath, Locus of Creation', ['W', 'U', 'R', 'G'], false],
  ["Mishra's Bauble", [], false],
  ['Engineered Explosives', [], false],
  ['Relic of Progenitus', [], false],
  ['Blood Moon', ['R'], false],
  ['Abrade', ['R'], false],
  ['Mystical Dispute', ['U'], false],
  ['Flusterstorm', ['U'], false],
  ['Spell Pierce', ['U'], false],
  ['Dress Down', ['U'], false],
  ['Force of Negation', ['U'], false],
  ['Surgical Extraction', ['B'], false],
  ['Rest in Peace', ['W'], false],
  ["Kolaghan's Command", ['B', 'R'], false],
  ['Steam Vents', ['U', 'R'], true],
  ['Spirebluff Canal', ['U', 'R'], true],
  ["Urza's Saga", [], true],
  ['Island', ['U'], true],
  ['Mountain', ['R'], true],
  ['Snow-Covered Forest', ['G'], true],
];
const FACTS = new Map<string, Facts>(POOL.map(([name, color_identity, is_land]) => [name, { color_identity, is_land, mana_cost: is_land ? null : '{1}', type_line: is_land ? 'Land' : 'Spell' }]));
/** Cards the lookup does not know (data without card facts): never recommended. */
const UNKNOWN = 'Unreleased Card';
const card = (name: string) => FACTS.get(name);

type Entries = Array<[string, number]>;
let nextId = 1;
const list = (mainboard: Entries, sideboard: Entries = [], archetype = 'Izzet Murktide'): ListSample => ({
  id: nextId++,
  day: '2026-03-01',
  archetype,
  color: 'UR',
  mainboard: mainboard.map(([name, count]) => ({ card: name, count })),
  sideboard: sideboard.map(([name, count]) => ({ card: name, count })),
});

/** Card adoption over these lists, as the queries add it up. */
const adoption = (lists: ListSample[]): ListsAdoption => {
  const out = emptyAdoption();
  addLists(out, lists);
  return out;
};

const expectUnavailable = (run: () => unknown) => {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).to.be.instanceOf(RequestError);
  expect((error as RequestError).code).to.equal('unavailable');
  return error as RequestError;
};

describe('mainboardPlan', () => {
  /**
   * Four Izzet lists (main decks):
   *                         L1  L2  L3  L4   lists  copies  -> decks_pct, average_copies
   *   Lightning Bolt         4   4   4   4     4      16       100
   *   Counterspell           4   3   -   4     3                75
   *   Expressive Iteration   2   2   1   -     3                75
   *   Ragavan                4   4   3   4     4      15       100, 15/4 = 3.75 -> 3.8
   *   Dragon's Rage Ch.      4   3   -   4     3      11        75, 11/3 = 3.67 -> 3.7
   *   Mishra's Bauble        2   -   2   -     2       4        50, 2
   *   Unholy Heat            -   2   3   -     2       5        50, 2.5
   *   Murktide Regent        -   -   -   2     1       2        25, 2
   *   Fury                   -   -   1   -     1                25
   *   Consider               -   -   -   4     1                25
   *   Teferi (WU)            1   -   -   -     off colour for UR
   *   Unreleased Card        -   1   -   -     not in the card lookup
   *   Steam Vents, Island, Spirebluff Canal: lands
   */
  const ARCHETYPE_LISTS = [
    list([['Lightning Bolt', 4], ['Counterspell', 4], ['Expressive Iteration', 2], ['Ragavan, Nimble Pilferer', 4], ["Dragon's Rage Channeler", 4], ['Teferi, Time Raveler', 1], ["Mishra's Bauble", 2], ['Steam Vents', 4], ['Island', 5]]),
    list([['Lightning Bolt', 4], ['Counterspell', 3], ['Expressive Iteration', 2], ['Ragavan, Nimble Pilferer', 4], ["Dragon's Rage Channeler", 3], ['Unholy Heat', 2], [UNKNOWN, 1], ['Steam Vents', 4], ['Island', 6]]),
    list([['Lightning Bolt', 4], ['Expressive Iteration', 1], ['Ragavan, Nimble Pilferer', 3], ['Unholy Heat', 3], ['Fury', 1], ["Mishra's Bauble", 2], ['Steam Vents', 3]]),
    list([['Lightning Bolt', 4], ['Counterspell', 4], ['Ragavan, Nimble Pilferer', 4], ["Dragon's Rage Channeler", 4], ['Murktide Regent', 2], ['Consider', 4], ['Spirebluff Canal', 1]]),
  ];

  /**
   * Top archetypes: Burn 30% (2 lists), Jund 10% (2 lists), Tron 20% with no lists (left out of the weights).
   * Weights: 30 + 10 = 40 -> Burn counts 30/40 = 0.75, Jund 10/40 = 0.25.
   *   Lightning Bolt: Burn 2/2 = 100% * 0.75 + Jund 1/2 = 50% * 0.25 = 75 + 12.5 = 87.5
   *   Lava Spike:     Burn 100% * 0.75 = 75          Mountain: 75
   *   Mishra's Bauble: Burn 1/2 = 50% * 0.75 = 37.5
   *   Fatal Push:     Jund 100% * 0.25 = 25          Ragavan, Thoughtseize: Jund 50% * 0.25 = 12.5
   */
  const TOP: TopArchetype[] = [
    { archetype: 'Burn', meta_share: 30, adoption: adoption([list([['Lightning Bolt', 4], ['Lava Spike', 4], ['Mountain', 16]], [], 'Burn'), list([['Lightning Bolt', 4], ['Lava Spike', 4], ["Mishra's Bauble", 4], ['Mountain', 16]], [], 'Burn')]) },
    { archetype: 'Jund', meta_share: 10, adoption: adoption([list([['Fatal Push', 4], ['Ragavan, Nimble Pilferer', 4], ['Thoughtseize', 4]], [], 'Jund'), list([['Fatal Push', 3], ['Lightning Bolt', 4]], [], 'Jund')]) },
    { archetype: 'Tron', meta_share: 20, adoption: adoption([]) },
  ];

  /** The user's Izzet main deck: 4+4+2+2+4+3 = 19 spells and 4+2+8 = 14 lands. */
  const MAINBOARD = new Map<string, number>([
    ['Lightning Bolt', 4],
    ['Counterspell', 4],
    ['Expressive Iteration', 2],
    ['Subtlety', 2],
    ['Consider', 4],
    ['Fury', 3],
    ['Steam Vents', 4],
    ['Spirebluff Canal', 2],
    ['Island', 8],
  ]);
  const input: MainboardPlanInput = { mainboard: MAINBOARD, colors: 'UR', archetypeAdoption: adoption(ARCHETYPE_LISTS), top: TOP, card };

  it('topArchetypeAdoption weights each archetype by its share among those with lists', () => {
    expect(Object.fromEntries(topArchetypeAdoption(TOP, 'mainboard'))).to.deep.equal({
      'Lightning Bolt': 87.5,
      'Lava Spike': 75,
      Mountain: 75,
      "Mishra's Bauble": 37.5,
      'Fatal Push': 25,
      'Ragavan, Nimble Pilferer': 12.5,
      Thoughtseize: 12.5,
    });
    expect(topArchetypeAdoption([{ archetype: 'Tron', meta_share: 20, adoption: adoption([]) }], 'mainboard').size).to.equal(0);
    expect(topArchetypeAdoption([], 'sideboard').size).to.equal(0);
  });

  it('finds flex spots: non-land cards under 50% of the archetype\'s lists, least played first', () => {
    const { flex_spots } = mainboardPlan(input);
    expect(FLEX_BELOW_PCT).to.equal(50);
    // Bolt 100, Counterspell 75, Expressive Iteration 75 stay; Subtlety 0, Consider 25, Fury 25 (tie by name).
    // Lands are never flex spots, however rare (Spirebluff Canal 25%, Island in 2 of 4 lists).
    expect(flex_spots).to.deep.equal([
      { name: 'Subtlety', quantity: 2, decks_pct: 0, reason: 'played in 0% of 4 recent lists of the archetype' },
      { name: 'Consider', quantity: 4, decks_pct: 25, reason: 'played in 25% of 4 recent lists of the archetype' },
      { name: 'Fury', quantity: 3, decks_pct: 25, reason: 'played in 25% of 4 recent lists of the archetype' },
    ]);
  });

  it('refills each flex spot with the best candidates at their usual copy counts, keeping the deck size', () => {
    /**
     * Candidates (score = archetype % + top % / 2), neither in the deck, nor lands, nor off colour, nor unknown:
     *   Ragavan          100 + 12.5/2 = 106.25   usual copies 3.8 -> 4
     *   Dragon's Rage Ch. 75 + 0      =  75      3.7 -> 4
     *   Mishra's Bauble   50 + 37.5/2 =  68.75   2
     *   Unholy Heat       50 + 0      =  50      2.5 -> 3
     *   Lava Spike         0 + 75/2   =  37.5    (not in the archetype's lists) -> 1
     *   Murktide Regent   25 + 0      =  25      2
     * Left out: Teferi (WU), Fatal Push and Thoughtseize (B), Unreleased Card (unknown), Mountain (basic).
     *
     * Subtlety x2 <- Ragavan min(2, 4) = 2
     * Consider x4 <- DRC min(4, 4) = 4
     * Fury x3     <- Bauble min(3, 2) = 2, then Unholy Heat min(1, 3) = 1
     */
    const { recommendations } = mainboardPlan(input);
    expect(recommendations.map((r) => [r.add, r.quantity, r.replaces, r.archetype_decks_pct, r.top_archetypes_decks_pct])).to.deep.equal([
      ['Ragavan, Nimble Pilferer', 2, 'Subtlety', 100, 12.5],
      ["Dragon's Rage Channeler", 4, 'Consider', 75, 0],
      ["Mishra's Bauble", 2, 'Fury', 50, 37.5],
      ['Unholy Heat', 1, 'Fury', 50, 0],
    ]);
    expect(recommendations[0]).to.deep.include({
      mana_cost: '{1}',
      type_line: 'Spell',
      color_identity: ['R'],
      reason: "in 100% of the archetype's lists (3.8 copies on average) and 12.5% of the top archetypes' lists, against 0% for Subtlety",
    });
    // 2 + 4 + 3 = 9 copies out, 2 + 4 + 2 + 1 = 9 in
    const out = mainboardPlan(input).flex_spots.reduce((n, s) => n + s.quantity, 0);
    expect(recommendations.reduce((n, r) => n + r.quantity, 0)).to.equal(out).and.to.equal(9);
  });

  it('recommends from the top archetypes\' lists when the archetype\'s own run out, one copy each', () => {
    // Only Subtlety x4 is flex (0 of 1 list); the archetype's list has nothing new; Burn and Jund fill in.
    const plan = mainboardPlan({
      mainboard: new Map([['Lightning Bolt', 4], ['Subtlety', 4]]),
      colors: 'UR',
      archetypeAdoption: adoption([list([['Lightning Bolt', 4]])]),
      top: TOP,
      card,
    });
    // Candidates: Lava Spike 75/2 = 37.5, Bauble 37.5/2 = 18.75, Ragavan 12.5/2 = 6.25; usual copies 0 -> 1 each.
    expect(plan.recommendations.map((r) => [r.add, r.quantity, r.replaces])).to.deep.equal([
      ['Lava Spike', 1, 'Subtlety'],
      ["Mishra's Bauble", 1, 'Subtlety'],
      ['Ragavan, Nimble Pilferer', 1, 'Subtlety'],
    ]);
    // Only three candidates exist: 3 of the 4 copies are refilled, never more than the spot holds.
    expect(plan.recommendations[0].reason).to.equal("in 0% of the archetype's lists and 75% of the top archetypes' lists, against 0% for Subtlety");
  });

  it('has nothing to recommend when every spell is core to the archetype', () => {
    const plan = mainboardPlan({ ...input, mainboard: new Map([['Lightning Bolt', 4], ['Ragavan, Nimble Pilferer', 4], ['Island', 20], ['Steam Vents', 4]]) });
    expect(plan).to.deep.equal({ flex_spots: [], recommendations: [] });
  });

  it('keeps at most 8 flex spots', () => {
    const spells = POOL.filter(([, , land]) => !land).map(([name]) => name).filter((name) => !['Lightning Bolt', 'Ragavan, Nimble Pilferer'].includes(name));
    const plan = mainboardPlan({ ...input, mainboard: new Map(spells.map((name) => [name, 1])) });
    expect(plan.flex_spots).to.have.length(8);
  });
});

describe('sideboardPlan', () => {
  /**
   * Ten Izzet lists (sideboards); "in" gives the lists playing the card, each with the same count:
   *   card                   in      count  lists  -> decks_pct  average copies
   *   Mystical Dispute       1-8     2       8        80          2
   *   Blood Moon             1-6     2       6        60          2
   *   Engineered Explosives  1-5     1       5        50          1
   *   Flusterstorm           1-4     2       4        40          2
   *   Abrade                 8-10    3       3        30          3
   *   Relic of Progenitus    9-10    2       2        20          2
   *   Dress Down             10      1       1        10          1
   *   Surgical Extraction    6-10    2       5        50          (B: off colour)
   *   Unreleased Card        1-9     1       9        90          (not in the card lookup)
   *   Island                 1-3     1       3        30          (basic land)
   */
  const SPREAD: Array<[string, number, number, number]> = [
    ['Mystical Dispute', 1, 8, 2],
    ['Blood Moon', 1, 6, 2],
    ['Engineered Explosives', 1, 5, 1],
    ['Flusterstorm', 1, 4, 2],
    ['Abrade', 8, 10, 3],
    ['Relic of Progenitus', 9, 10, 2],
    ['Dress Down', 10, 10, 1],
    ['Surgical Extraction', 6, 10, 2],
    [UNKNOWN, 1, 9, 1],
    ['Island', 1, 3, 1],
  ];
  const ARCHETYPE_LISTS = Array.from({ length: 10 }, (_, i) => list([], SPREAD.filter(([, from, to]) => i + 1 >= from && i + 1 <= to).map(([name, , , count]) => [name, count])));
  /**
   * Two same-coloured lists of other archetypes:  C1: Blood Moon 3, Force of Negation 2;  C2: Force of Negation 3, Abrade 1
   *   -> Blood Moon 1/2 = 50% (3 copies), Force of Negation 2/2 = 100% (5/2 = 2.5 copies), Abrade 50% (1 copy)
   */
  const COLOR_LISTS = [list([], [['Blood Moon', 3], ['Force of Negation', 2]], 'Other'), list([], [['Force of Negation', 3], ['Abrade', 1]], 'Other')];
  const TOP_SIDE = new Map([['Relic of Progenitus', 40], ['Rest in Peace', 80], ['Abrade', 20]]);
  const base: Omit<SideboardPlanInput, 'sideboard'> = { colors: 'UR', archetypeAdoption: adoption(ARCHETYPE_LISTS), colorAdoption: adoption(COLOR_LISTS), topSideAdoption: TOP_SIDE, card };
  const total = (cards: Array<{ quantity: number }>) => cards.reduce((n, c) => n + c.quantity, 0);

  it('keeps the user\'s cards sided by at least 10% of the lists and fills to 15 with the best candidates', () => {
    expect(KEEP_AT_PCT).to.equal(10);
    expect(SIDEBOARD_SIZE).to.equal(15);
    /**
     * User: Dress Down 2 (10%: kept, the threshold is inclusive), Mystical Dispute 1 (80%: kept),
     *       Spell Pierce 3 (0%: out), Rest in Peace 2 (0%, and white: out). Kept: 2 + 1 = 3.
     * Candidates, score = own % + same-colour % / 4 + top % / 8:
     *   Blood Moon   60 + 50/4 = 72.5         copies 2
     *   EE           50                        copies 1
     *   Abrade       30 + 50/4 + 20/8 = 45     copies 3
     *   Flusterstorm 40                        copies 2
     *   Force of Neg. 0 + 100/4 = 25           copies: none in the archetype -> same-colour 2.5 -> 3
     *   Relic        20 + 40/8 = 25            copies 2 (tie with Force at 25: by name, Force first)
     * (Surgical Extraction: black; Unreleased Card: unknown; Island: basic; Rest in Peace: only in the
     *  top decks' adoption, which never proposes a card by itself.)
     * Fill from 3: +2 Blood Moon = 5, +1 EE = 6, +3 Abrade = 9, +2 Flusterstorm = 11, +3 Force = 14,
     *              +1 Relic (room 1 of its 2) = 15.
     */
    const plan = sideboardPlan({ ...base, sideboard: new Map([['Dress Down', 2], ['Spell Pierce', 3], ['Mystical Dispute', 1], ['Rest in Peace', 2]]) });
    expect(plan.final_sideboard).to.deep.equal([
      { name: 'Abrade', quantity: 3 },
      { name: 'Force of Negation', quantity: 3 },
      { name: 'Blood Moon', quantity: 2 },
      { name: 'Dress Down', quantity: 2 },
      { name: 'Flusterstorm', quantity: 2 },
      { name: 'Engineered Explosives', quantity: 1 },
      { name: 'Mystical Dispute', quantity: 1 },
      { name: 'Relic of Progenitus', quantity: 1 },
    ]);
    expect(total(plan.final_sideboard)).to.equal(15);
    expect(plan.sideboard_changes.map((c) => [c.action, c.card, c.from, c.to])).to.deep.equal([
      ['remove', 'Rest in Peace', 2, 0],
      ['remove', 'Spell Pierce', 3, 0],
      ['add', 'Abrade', 0, 3],
      ['add', 'Blood Moon', 0, 2],
      ['add', 'Engineered Explosives', 0, 1],
      ['add', 'Flusterstorm', 0, 2],
      ['add', 'Force of Negation', 0, 3],
      ['add', 'Relic of Progenitus', 0, 1],
    ]);
    const reason = (name: string) => plan.sideboard_changes.find((c) => c.card === name)!.reason;
    expect(reason('Spell Pierce')).to.equal('sided by 0% of recent lists of the archetype (under 10%)');
    expect(reason('Abrade')).to.equal('sided by 30% of recent lists of the archetype, 3 copies on average');
    expect(reason('Force of Negation')).to.equal('sided by 0% of recent lists of the archetype, 2.5 copies on average');
  });

  it('trims the least adopted kept cards when more than 15 are kept', () => {
    /**
     * All kept (>= 10%): Mystical Dispute 4 (score 80), Blood Moon 4 (72.5), EE 4 (50), Abrade 4 (45),
     * Flusterstorm 2 (40), Dress Down 1 (10) = 19, 4 too many. From the lowest score up:
     *   Dress Down 1 -> 0 (18), Flusterstorm 2 -> 0 (16), Abrade 4 -> 3 (15).
     */
    const plan = sideboardPlan({
      ...base,
      sideboard: new Map([['Mystical Dispute', 4], ['Blood Moon', 4], ['Engineered Explosives', 4], ['Abrade', 4], ['Flusterstorm', 2], ['Dress Down', 1]]),
    });
    expect(plan.final_sideboard).to.deep.equal([
      { name: 'Blood Moon', quantity: 4 },
      { name: 'Engineered Explosives', quantity: 4 },
      { name: 'Mystical Dispute', quantity: 4 },
      { name: 'Abrade', quantity: 3 },
    ]);
    expect(plan.sideboard_changes.map((c) => [c.action, c.card, c.from, c.to])).to.deep.equal([
      ['remove', 'Dress Down', 1, 0],
      ['remove', 'Flusterstorm', 2, 0],
      ['adjust', 'Abrade', 4, 3],
    ]);
    // Flusterstorm is sided by 40% of the lists: it was trimmed for room, not for being under 10%.
    const flusterstorm = plan.sideboard_changes.find((c) => c.card === 'Flusterstorm')!.reason;
    expect(flusterstorm).to.include('40%');
    expect(flusterstorm).to.not.include('under 10%');
  });

  it('makes no change to a sideboard that already is what the data suggests', () => {
    const plan = sideboardPlan({ ...base, sideboard: new Map([['Mystical Dispute', 4], ['Blood Moon', 4], ['Engineered Explosives', 4], ['Abrade', 3]]) });
    expect(plan.sideboard_changes).to.deep.equal([]);
    expect(total(plan.final_sideboard)).to.equal(15);
  });

  it('brings the user\'s own cards back, then raises copies to four, when the data has too few candidates', () => {
    /**
     * Four lists:  T1: Blood Moon 2, Abrade 3, Flusterstorm 2, EE 1;  T2: Blood Moon 2, Abrade 3, Flusterstorm 2;
     *              T3: Blood Moon 2, Abrade 3;  T4: Blood Moon 2.
     *   Blood Moon 100% (2), Abrade 75% (3), Flusterstorm 50% (2), EE 25% (1). User: Spell Pierce 3 (0%).
     * Candidates at usual copies: 2 + 3 + 2 + 1 = 8; Spell Pierce comes back: 11;
     * then up to four copies in candidate order: Blood Moon +2 = 13, Abrade +1 = 14, Flusterstorm +1 = 15.
     */
    const plan = sideboardPlan({
      sideboard: new Map([['Spell Pierce', 3]]),
      colors: 'UR',
      archetypeAdoption: adoption([
        list([], [['Blood Moon', 2], ['Abrade', 3], ['Flusterstorm', 2], ['Engineered Explosives', 1]]),
        list([], [['Blood Moon', 2], ['Abrade', 3], ['Flusterstorm', 2]]),
        list([], [['Blood Moon', 2], ['Abrade', 3]]),
        list([], [['Blood Moon', 2]]),
      ]),
      colorAdoption: adoption([]),
      topSideAdoption: new Map(),
      card,
    });
    expect(plan.final_sideboard).to.deep.equal([
      { name: 'Abrade', quantity: 4 },
      { name: 'Blood Moon', quantity: 4 },
      { name: 'Flusterstorm', quantity: 3 },
      { name: 'Spell Pierce', quantity: 3 },
      { name: 'Engineered Explosives', quantity: 1 },
    ]);
    expect(plan.sideboard_changes.map((c) => [c.action, c.card, c.from, c.to])).to.deep.equal([
      ['add', 'Abrade', 0, 4],
      ['add', 'Blood Moon', 0, 4],
      ['add', 'Engineered Explosives', 0, 1],
      ['add', 'Flusterstorm', 0, 3],
    ]);
  });

  it('throws RequestError unavailable when not even four copies of everything make 15', () => {
    // One candidate (Blood Moon) and an empty sideboard: at most 4 cards.
    const error = expectUnavailable(() =>
      sideboardPlan({ sideboard: new Map(), colors: 'UR', archetypeAdoption: adoption([list([], [['Blood Moon', 2]])]), colorAdoption: adoption([]), topSideAdoption: new Map(), card }),
    );
    expect(error.message).to.include('colours UR');
    // No lists at all.
    expectUnavailable(() => sideboardPlan({ sideboard: new Map(), colors: 'UR', archetypeAdoption: adoption([]), colorAdoption: adoption([]), topSideAdoption: new Map(), card }));
    // Only off-colour, unknown and basic cards in the data: nothing fits a mono-blue deck.
    expectUnavailable(() =>
      sideboardPlan({
        sideboard: new Map([['Spell Pierce', 2]]),
        colors: 'U',
        archetypeAdoption: adoption([list([], [['Blood Moon', 4], ['Surgical Extraction', 4], [UNKNOWN, 4], ['Island', 4], ['Rest in Peace', 4]])]),
        colorAdoption: adoption([]),
        topSideAdoption: new Map(),
        card,
      }),
    );
  });
});

describe('planner properties (random small fixtures)', () => {
  const NAMES = [...POOL.map(([name]) => name), UNKNOWN];
  const entries = (max: number) => fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.integer({ min: 1, max: 4 })), { maxLength: max, selector: ([name]) => name });
  const sample = fc.record({ main: entries(12), side: entries(8) }).map(({ main, side }) => list(main, side));
  const lists = fc.array(sample, { maxLength: 10 });
  const colors = fc.subarray(['W', 'U', 'B', 'R', 'G']).map((letters) => (letters.length ? letters.join('') : 'C'));
  /** A user sideboard of 0-20 cards. */
  const userSideboard = entries(10).map((cards) => {
    const kept: Entries = [];
    let n = 0;
    for (const [name, count] of cards) if (n + count <= 20) (kept.push([name, count]), (n += count));
    return new Map(kept);
  });
  const topOf = (lists: Array<{ archetype: string; meta_share: number; lists: ListSample[] }>): TopArchetype[] => lists.map((t) => ({ archetype: t.archetype, meta_share: t.meta_share, adoption: adoption(t.lists) }));
  const top = fc.array(fc.record({ archetype: fc.constantFrom('Burn', 'Jund', 'Tron'), meta_share: fc.double({ min: 0.5, max: 40, noNaN: true }), lists: fc.array(sample, { maxLength: 4 }) }), { maxLength: 3 });

  it('sideboardPlan returns exactly 15 cards, adds only cards that fit, and its changes lead from the old sideboard to the new one (or says unavailable)', () => {
    fc.assert(
      fc.property(userSideboard, colors, lists, lists, top, (sideboard, deckColors, archetypeLists, colorLists, topLists) => {
        let plan: ReturnType<typeof sideboardPlan>;
        try {
          plan = sideboardPlan({ sideboard, colors: deckColors, archetypeAdoption: adoption(archetypeLists), colorAdoption: adoption(colorLists), topSideAdoption: topArchetypeAdoption(topOf(topLists), 'sideboard'), card });
        } catch (error) {
          expect(error).to.be.instanceOf(RequestError);
          expect((error as RequestError).code).to.equal('unavailable');
          return;
        }
        const final = new Map(plan.final_sideboard.map((c) => [c.name, c.quantity]));
        expect(final.size, 'no duplicate names').to.equal(plan.final_sideboard.length);
        expect([...final.values()].reduce((n, q) => n + q, 0)).to.equal(15);
        for (const [name, quantity] of final) {
          expect(quantity).to.be.greaterThan(0);
          if (sideboard.has(name)) continue;
          expect(card(name), `${name} is a known card`).to.not.equal(undefined);
          expect(BASIC_LANDS.has(name), `${name} is no basic land`).to.equal(false);
          expect(fitsColors(card(name)!.color_identity, deckColors), `${name} fits ${deckColors}`).to.equal(true);
          expect(quantity).to.be.at.most(4);
        }
        const replay = new Map(sideboard);
        for (const change of plan.sideboard_changes) {
          expect(replay.get(change.card) ?? 0).to.equal(change.from);
          expect(change.action).to.equal(change.from === 0 ? 'add' : change.to === 0 ? 'remove' : 'adjust');
          if (change.to === 0) replay.delete(change.card);
          else replay.set(change.card, change.to);
        }
        expect(Object.fromEntries(replay)).to.deep.equal(Object.fromEntries(final));
      }),
      { numRuns: 300 },
    );
  });

  it('mainboardPlan recommends only known, non-land cards in the colours and not in the deck, never more copies than a spot holds', () => {
    fc.assert(
      fc.property(entries(14), colors, lists, top, (main, deckColors, archetypeLists, topLists) => {
        const mainboard = new Map(main);
        const plan = mainboardPlan({ mainboard, colors: deckColors, archetypeAdoption: adoption(archetypeLists), top: topOf(topLists), card });
        expect(plan.flex_spots.length).to.be.at.most(8);
        const spots = new Map(plan.flex_spots.map((s) => [s.name, s]));
        for (const spot of plan.flex_spots) {
          expect(spot.decks_pct).to.be.below(FLEX_BELOW_PCT);
          expect(card(spot.name)?.is_land ?? false).to.equal(false);
          expect(spot.quantity).to.equal(mainboard.get(spot.name));
        }
        const pcts = plan.flex_spots.map((s) => s.decks_pct);
        expect(pcts).to.deep.equal([...pcts].sort((a, b) => a - b));

        const added = new Set<string>();
        const filled = new Map<string, number>();
        for (const r of plan.recommendations) {
          const facts = card(r.add);
          expect(facts, `${r.add} is a known card`).to.not.equal(undefined);
          expect(facts!.is_land).to.equal(false);
          expect(BASIC_LANDS.has(r.add)).to.equal(false);
          expect(mainboard.has(r.add), `${r.add} is already in the deck`).to.equal(false);
          expect(fitsColors(facts!.color_identity, deckColors), `${r.add} fits ${deckColors}`).to.equal(true);
          expect(added.has(r.add), `${r.add} recommended twice`).to.equal(false);
          added.add(r.add);
          expect(r.quantity).to.be.at.least(1);
          expect(spots.has(r.replaces!)).to.equal(true);
          filled.set(r.replaces!, (filled.get(r.replaces!) ?? 0) + r.quantity);
        }
        let ranOut = false;
        for (const spot of plan.flex_spots) {
          const copies = filled.get(spot.name) ?? 0;
          expect(copies).to.be.at.most(spot.quantity);
          // A spot is left short only when the candidates ran out: every later spot gets nothing.
          if (ranOut) expect(copies).to.equal(0);
          if (copies < spot.quantity) ranOut = true;
        }
      }),
      { numRuns: 300 },
    );
  });
});
