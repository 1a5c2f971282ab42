import { expect } from 'chai';
import fc from 'fast-check';
import { describeOutcomes, toolSummary, type MetaToolName, type ToolOutcome } from '../../../actors/conversation/tool-prose.js';

// Fixtures follow the README's example answers on the bundled data and the output schemas in
// actors/meta/contract.ts, with more rows filled in the same shape.

const OFFLINE_NOTICE =
  'No language model is configured, so this explanation was written from built-in templates; set LLM_PROVIDER and LARGE_LANGUAGE_MODEL to have a model explain these results.';
const WINDOW = { start: '2026-07-10', end: '2026-08-08', days: 30 };

const ranking = (archetype: string, color_identity: string, current: [number, number, number | null, number], previous: [number, number, number | null, number], change: number) => ({
  archetype,
  id: archetype.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
  color_identity,
  meta_share_current: current[0],
  meta_share_previous: previous[0],
  meta_share_change: change,
  sample_size_current: current[1],
  sample_size_previous: previous[1],
  win_rate_current: current[2],
  win_rate_previous: previous[2],
  match_count_current: current[3],
  match_count_previous: previous[3],
});

const RANKINGS = {
  data: [
    ranking('Boros Energy', 'WR', [11.47, 331, 45.4, 659], [13.35, 409, 51.9, 429], -1.88),
    ranking('Goryo Reanimator', 'WUBG', [8.9, 257, 52.6, 498], [6.43, 197, 49.1, 281], 2.47),
    ranking('Amulet Titan', 'G', [6.1, 176, 53.2, 350], [6.76, 207, 50.4, 240], -0.66),
    ranking('Eldrazi Ramp', 'C', [5.72, 165, 48.8, 301], [4.9, 150, 47, 166], 0.82),
    ranking('Unknown (UR)', 'UR', [4.99, 144, 47.3, 212], [5.06, 155, 46.5, 130], -0.07),
    ranking('Jeskai Control', 'WUR', [4.02, 116, 50.9, 229], [3.2, 98, 52.2, 91], 0.82),
    ranking('Living End', 'UBRG', [3.6, 104, 46.1, 188], [4.08, 125, 44.8, 101], -0.48),
    ranking('Dimir Frog', 'UB', [3.05, 88, 51.7, 160], [2.87, 88, 50, 72], 0.18),
    ranking('Mono Red Prowess', 'R', [1.42, 41, 55.1, 92], [0, 0, null, 0], 1.42),
    ranking('Hardened Scales', 'G', [0.1, 3, null, 2], [0.26, 8, 40, 9], -0.16),
  ],
  metadata: {
    format: 'Modern',
    group_by: 'archetype',
    color_identity: null,
    current_period: { ...WINDOW, decks: 2887, matches: 3531 },
    previous_period: { start: '2026-06-10', end: '2026-07-09', days: 30, decks: 3063, matches: 2200 },
    newest_tournament: '2026-08-08',
    min_matches_for_win_rate: 3,
    timestamp: '2026-08-20T10:00:00.000Z',
  },
};

const RANKINGS_BY_COLOUR = {
  data: [
    { archetypes: ['Boros Energy', 'Boros Aggro', 'Mardu Energy'], color_identity: 'WR', meta_share_current: 14.2, meta_share_previous: 15.01, meta_share_change: -0.81, sample_size_current: 410, sample_size_previous: 460, win_rate_current: 46.2, win_rate_previous: 50.3, match_count_current: 801, match_count_previous: 520 },
    { archetypes: ['Goryo Reanimator'], color_identity: 'WUBG', meta_share_current: 8.9, meta_share_previous: 6.43, meta_share_change: 2.47, sample_size_current: 257, sample_size_previous: 197, win_rate_current: 52.6, win_rate_previous: 49.1, match_count_current: 498, match_count_previous: 281 },
    { archetypes: ['Eldrazi Ramp', 'Tron'], color_identity: 'C', meta_share_current: 6.3, meta_share_previous: 5.8, meta_share_change: 0.5, sample_size_current: 182, sample_size_previous: 178, win_rate_current: null, win_rate_previous: null, match_count_current: 2, match_count_previous: 1 },
  ],
  metadata: { ...RANKINGS.metadata, group_by: 'color_identity' },
};

const MATCHUPS = {
  matrix: {
    'Mono Red Aggro': {
      'Mono Red Aggro': { win_rate: 50, match_count: 11 },
      'Unknown (UR)': { win_rate: 43.8, match_count: 16 },
      'Izzet Phoenix': { win_rate: 61.5, match_count: 13 },
      'Azorius Control': { win_rate: 70, match_count: 2 },
      'Golgari Midrange': { win_rate: 36.4, match_count: 12 },
    },
    'Unknown (UR)': {
      'Mono Red Aggro': { win_rate: 56.3, match_count: 16 },
      'Izzet Phoenix': { win_rate: 40, match_count: 10 },
      'Golgari Midrange': { win_rate: 55.6, match_count: 9 },
    },
    'Izzet Phoenix': {
      'Mono Red Aggro': { win_rate: 38.5, match_count: 13 },
      'Unknown (UR)': { win_rate: 60, match_count: 10 },
    },
    'Golgari Midrange': {
      'Mono Red Aggro': { win_rate: 63.6, match_count: 12 },
      'Unknown (UR)': { win_rate: 44.4, match_count: 9 },
    },
    'Azorius Control': { 'Mono Red Aggro': { win_rate: null, match_count: 2 } },
  },
  archetypes: ['Mono Red Aggro', 'Unknown (UR)', 'Izzet Phoenix', 'Golgari Midrange', 'Azorius Control'],
  metadata: { format: 'Pioneer', days: 30, period: WINDOW, matches: 310, newest_tournament: '2026-08-08', min_matches_for_win_rate: 3 },
};

const ARCHETYPES = {
  format: 'Legacy',
  archetypes: [
    { id: 'dimir-tempo', name: 'Dimir Tempo', meta_share: 10.6, color_identity: 'UB' },
    { id: 'doomsday', name: 'Doomsday', meta_share: 7.58, color_identity: 'UB' },
    { id: 'sneak-and-show', name: 'Sneak and Show', meta_share: 6.04, color_identity: 'UR' },
    { id: 'eldrazi', name: 'Eldrazi', meta_share: 5.3, color_identity: 'C' },
  ],
  metadata: { days: 30, period: WINDOW, decks: 1358, newest_tournament: '2026-08-08' },
};

const card = (name: string, quantity: number, section: 'mainboard' | 'sideboard', mana_cost: string | null, type_line: string, colors: string[]) => ({
  name,
  quantity,
  section,
  mana_cost,
  mana_value: mana_cost === null ? 0 : mana_cost.length / 3,
  type_line,
  colors,
  color_identity: colors,
  oracle_text: null,
});

const ENRICHED = {
  card_details: [
    card('Lightning Bolt', 4, 'mainboard', '{R}', 'Instant', ['R']),
    card('Ragavan, Nimble Pilferer', 4, 'mainboard', '{R}', 'Legendary Creature — Monkey Pirate', ['R']),
    card('Guide of Souls', 4, 'mainboard', '{W}', 'Creature — Human Cleric', ['W']),
    card('Fable of the Mirror-Breaker', 2, 'mainboard', '{2}{R}', 'Enchantment — Saga // Enchantment Creature — Goblin Shaman', ['R']),
    card('Sacred Foundry', 2, 'mainboard', null, 'Land — Mountain Plains', []),
    card('Wear // Tear', 2, 'sideboard', '{1}{R} // {W}', 'Instant // Instant', ['R', 'W']),
    card('Blood Moon', 2, 'sideboard', '{2}{R}', 'Enchantment', ['R']),
  ],
  mainboard_count: 16,
  sideboard_count: 4,
  unmatched: [{ name: 'Lightnig Bolt', quantity: 4, section: 'mainboard', line: 5, suggestions: ['Lightning Bolt'] }],
  errors: ['line 5: no card named "Lightnig Bolt"', 'line 9: no quantity: "Bolt the bird"'],
};

const matchup = (opponent_archetype: string, win_rate: number | null, match_count: number, wins: number, losses: number, draws: number) => ({ opponent_archetype, win_rate, match_count, wins, losses, draws });

const DECK_MATCHUPS = {
  archetype: 'Boros Energy',
  format: 'Modern',
  days: 30,
  matchup_stats: [
    matchup('Goryo Reanimator', 33.8, 69, 22, 43, 4),
    matchup('Amulet Titan', 38.8, 50, 19, 30, 1),
    matchup('Eldrazi Ramp', 58.3, 48, 28, 20, 0),
    matchup('Unknown (UR)', 51.2, 43, 21, 20, 2),
    matchup('Jeskai Control', 61.1, 36, 22, 14, 0),
    matchup('Living End', 44.8, 29, 13, 16, 0),
    matchup('Dimir Frog', 65, 20, 13, 7, 0),
    matchup('Mono Red Prowess', 75, 4, 3, 1, 0),
    matchup('Hardened Scales', null, 2, 1, 1, 0),
  ],
  overall: { win_rate: 45.4, match_count: 659, wins: 290, losses: 349, draws: 20 },
  metadata: { period: WINDOW, newest_tournament: '2026-08-08', min_matches_for_win_rate: 3 },
};

const adoption = (name: string, decks_pct: number, average_copies: number) => ({ name, decks_pct, average_copies });

const STRATEGY = {
  archetype: 'Boros Energy',
  opponent_archetype: 'Goryo Reanimator',
  format: 'Modern',
  matchup_stats: { win_rate: 33.8, match_count: 69, source: 'data' },
  opponent_profile: {
    lists: 200,
    key_cards: [adoption('Psychic Frog', 100, 3.9), adoption("Goryo's Vengeance", 98.5, 3.8), adoption('Ephemerate', 97, 3.6), adoption('Atraxa, Grand Unifier', 91.5, 1.4), adoption('Thoughtseize', 88, 2.9), adoption('Solitude', 77.5, 2.1)],
    sideboard_cards: [adoption('Consign to Memory', 62.5, 2.2), adoption('Flusterstorm', 41, 1.5), adoption('Endurance', 33, 1.9)],
  },
  your_key_cards: [
    { name: 'Galvanic Discharge', quantity: 4, decks_pct: 99.3 },
    { name: 'Guide of Souls', quantity: 4, decks_pct: 98.7 },
    { name: 'Ocelot Pride', quantity: 4, decks_pct: 90 },
  ],
  advice: [
    '**Boros Energy vs Goryo Reanimator** (Modern, 2026-07-10 to 2026-08-08).',
    'Record: 33.8% over 69 matches.',
    'Plan around their staples: keep answers for the threats listed above and respect the sideboard cards they bring in for games two and three.',
    OFFLINE_NOTICE,
  ].join('\n\n'),
  narrator: { provider: 'offline', model: null, offline: true },
  metadata: { period: WINDOW, newest_tournament: '2026-08-08' },
};

const record = (win_rate: number | null, match_count: number, wins: number, losses: number, draws: number) => ({ win_rate, match_count, wins, losses, draws });

const MAINBOARD = {
  archetype: 'Boros Energy',
  format: 'Modern',
  deck_colors: 'WR',
  top_archetypes: [
    { archetype: 'Goryo Reanimator', meta_share: 8.9, matchup: record(33.8, 69, 22, 43, 4) },
    { archetype: 'Amulet Titan', meta_share: 6.1, matchup: record(38.8, 50, 19, 30, 1) },
    { archetype: 'Eldrazi Ramp', meta_share: 5.72, matchup: record(58.3, 48, 28, 20, 0) },
  ],
  flex_spots: [
    { name: "Phlage, Titan of Fire's Fury", quantity: 3, decks_pct: 0, reason: 'played in 0% of 300 recent lists of the archetype' },
    { name: 'Static Prison', quantity: 1, decks_pct: 12.3, reason: 'played in 12.3% of 300 recent lists of the archetype' },
  ],
  recommendations: [
    {
      add: 'Thraben Charm',
      quantity: 2,
      replaces: "Phlage, Titan of Fire's Fury",
      mana_cost: '{1}{W}',
      type_line: 'Instant',
      color_identity: ['W'],
      archetype_decks_pct: 89,
      top_archetypes_decks_pct: 0,
      reason: "in 89% of the archetype's lists (2.2 copies on average) and 0% of the top archetypes' lists, against 0% for Phlage, Titan of Fire's Fury",
    },
    {
      add: 'Seasoned Pyromancer',
      quantity: 1,
      replaces: "Phlage, Titan of Fire's Fury",
      mana_cost: '{1}{R}{R}',
      type_line: 'Creature — Human Shaman',
      color_identity: ['R'],
      archetype_decks_pct: 41.7,
      top_archetypes_decks_pct: 3.4,
      reason: "in 41.7% of the archetype's lists (1.3 copies on average) and 3.4% of the top archetypes' lists, against 0% for Phlage, Titan of Fire's Fury",
    },
    {
      add: 'Wrenn and Realmbreaker',
      quantity: 1,
      replaces: null,
      mana_cost: '{1}{G/W}{G/W}',
      type_line: 'Legendary Planeswalker — Wrenn',
      color_identity: ['G', 'W'],
      archetype_decks_pct: 7.5,
      top_archetypes_decks_pct: 12.25,
      reason: "in 7.5% of the archetype's lists",
    },
  ],
  explanation: [
    "**Boros Energy main deck** against the top 3 Modern archetypes (Goryo Reanimator 8.9%, Amulet Titan 6.1% and Eldrazi Ramp 5.72%), from 300 recent Boros Energy lists.",
    'Swap the slow threats for cheap interaction: the top decks punish a clunky curve.',
    OFFLINE_NOTICE,
  ].join('\n\n'),
  narrator: { provider: 'offline', model: null, offline: true },
  metadata: { period: WINDOW, archetype_lists: 300, newest_tournament: '2026-08-08' },
};

const SIDEBOARD = {
  archetype: 'Boros Energy',
  format: 'Modern',
  deck_colors: 'WR',
  sideboard_changes: [
    { action: 'remove', card: 'Rest in Peace', from: 2, to: 0, reason: 'sided by 4.3% of recent lists of the archetype (under 10%)' },
    { action: 'adjust', card: 'Surgical Extraction', from: 2, to: 3, reason: 'sided by 71.2% of recent lists of the archetype, 2.6 copies on average' },
    { action: 'add', card: 'Vexing Bauble', from: 0, to: 2, reason: 'sided by 83.7% of recent lists of the archetype, 1.6 copies on average' },
  ],
  sideboard_plans: [
    {
      opponent_archetype: 'Goryo Reanimator',
      meta_share: 8.9,
      matchup: record(33.8, 69, 22, 43, 4),
      their_key_cards: [adoption('Psychic Frog', 100, 3.9)],
      their_sideboard_cards: [adoption('Consign to Memory', 62.5, 2.2)],
      bring_in: ['Vexing Bauble', 'Surgical Extraction'],
      evidence: [
        { card: 'Vexing Bauble', matches_with: 48, win_rate_with: 41.3, matches_without: 21, win_rate_without: 19 },
        { card: 'Surgical Extraction', matches_with: 40, win_rate_with: 36.8, matches_without: 29, win_rate_without: 30.8 },
      ],
    },
    { opponent_archetype: 'Amulet Titan', meta_share: 6.1, matchup: record(38.8, 50, 19, 30, 1), their_key_cards: [], their_sideboard_cards: [], bring_in: [], evidence: [] },
  ],
  final_sideboard: [
    { name: 'Surgical Extraction', quantity: 3 },
    { name: 'Wrath of the Skies', quantity: 3 },
    { name: 'Blood Moon', quantity: 2 },
    { name: 'Vexing Bauble', quantity: 2 },
    { name: 'Wear // Tear', quantity: 2 },
    { name: 'High Noon', quantity: 2 },
    { name: 'Celestial Purge', quantity: 1 },
  ],
  explanation: ['**Boros Energy sideboard** for Modern against Goryo Reanimator (8.9%) and Amulet Titan (6.1%), from 300 recent Boros Energy lists.', OFFLINE_NOTICE].join('\n\n'),
  narrator: { provider: 'offline', model: null, offline: true },
  metadata: { period: WINDOW, archetype_lists: 300, newest_tournament: '2026-08-08' },
};

const ok = (tool: MetaToolName, result: unknown, args: Record<string, unknown> = {}): ToolOutcome => ({ tool, args, result });

const FIXTURES: Array<[MetaToolName, unknown, Record<string, unknown>]> = [
  ['get_format_meta_rankings', RANKINGS, { format: 'Modern' }],
  ['get_format_matchup_stats', MATCHUPS, { format: 'Pioneer' }],
  ['get_format_archetypes', ARCHETYPES, { format: 'Legacy' }],
  ['get_enriched_deck', ENRICHED, { deck: '4 Lightning Bolt' }],
  ['get_deck_matchup_stats', DECK_MATCHUPS, { archetype: 'Boros Energy', format: 'Modern' }],
  ['generate_deck_matchup_strategy', STRATEGY, { archetype: 'Boros Energy', opponent_archetype: 'Goryo Reanimator' }],
  ['optimize_mainboard', MAINBOARD, { archetype: 'Boros Energy', format: 'Modern' }],
  ['optimize_sideboard', SIDEBOARD, { archetype: 'Boros Energy', format: 'Modern' }],
];

/** The text contains every one of the strings, in any order. */
function expectAll(text: string, figures: string[]) {
  for (const figure of figures) expect(text, `missing ${figure}`).to.include(figure);
}

function expectNoJson(text: string) {
  expect(text).not.to.match(/[{}"[\]]|undefined|: null|NaN|\[object/);
}

describe('tool prose (offline answers from meta tool results)', () => {
  describe('every tool', () => {
    for (const [tool, result, args] of FIXTURES) {
      it(`${tool}: readable prose and a one-line summary, without JSON`, () => {
        const prose = describeOutcomes([ok(tool, result, args)]);
        const summary = toolSummary(ok(tool, result, args));
        expect(prose.length).to.be.greaterThan(80);
        expectNoJson(prose);
        expectNoJson(summary);
        expect(summary).not.to.include('\n');
        expect(summary.length).to.be.within(10, 160);
      });

      it(`${tool}: an error becomes one sentence`, () => {
        const outcome: ToolOutcome = { tool, args, error: "unknown Modern archetype 'Boros Enrgy'. Did you mean 'Boros Energy'? (not_found)" };
        const prose = describeOutcomes([outcome]);
        expect(prose).to.match(/^I could not get the [^:]+: unknown Modern archetype 'Boros Enrgy'\. Did you mean 'Boros Energy'\? \(not_found\)\.$/);
        expect(toolSummary(outcome)).to.match(/^failed: unknown Modern archetype/);
      });

      it(`${tool}: missing and odd fields do not throw`, () => {
        const odd = [{}, { data: null, metadata: 'x' }, { matrix: [], archetypes: {}, metadata: { period: null } }, { card_details: [null, 3, 'x'], unmatched: [{}], errors: [1] }, { matchup_stats: 5, overall: [] }];
        for (const value of [...odd, null, 'text', 42, []]) {
          expect(() => describeOutcomes([ok(tool, value, args)])).not.to.throw();
          expect(toolSummary(ok(tool, value, args))).to.be.a('string').and.not.include('\n');
        }
      });
    }

    it('never throws on arbitrary results and arguments', () => {
      const tools = FIXTURES.map(([tool]) => tool);
      fc.assert(
        fc.property(fc.constantFrom(...tools), fc.anything(), fc.dictionary(fc.string(), fc.anything()), (tool, result, args) => {
          const prose = describeOutcomes([{ tool, args, result }]);
          const summary = toolSummary({ tool, args, result });
          return typeof prose === 'string' && typeof summary === 'string' && !summary.includes('\n') && summary.length <= 160;
        }),
        { numRuns: 300 },
      );
    });

    it('never throws when real results lose fields one at a time', () => {
      for (const [tool, result, args] of FIXTURES) {
        for (const key of Object.keys(result as object)) {
          const { [key]: _dropped, ...rest } = result as Record<string, unknown>;
          expect(() => describeOutcomes([ok(tool, rest, args)])).not.to.throw();
          expect(() => toolSummary(ok(tool, rest, args))).not.to.throw();
        }
      }
    });

    it('joins several outcomes in order with blank lines, errors included', () => {
      const prose = describeOutcomes([ok('get_format_archetypes', ARCHETYPES), { tool: 'get_deck_matchup_stats', args: { archetype: 'X', format: 'Modern' }, error: 'unknown Modern archetype' }, ok('get_deck_matchup_stats', DECK_MATCHUPS)]);
      const legacy = prose.indexOf('Dimir Tempo');
      const failure = prose.indexOf('I could not get the deck\'s matchup stats for Modern: unknown Modern archetype.');
      const boros = prose.indexOf('**Boros Energy in Modern**');
      expect(legacy).to.be.greaterThan(-1);
      expect(failure).to.be.greaterThan(legacy);
      expect(boros).to.be.greaterThan(failure);
      expect(prose).to.include('\n\nI could not get');
    });

    it('does not throw on an outcome for a tool it does not know', () => {
      const outcome = { tool: 'list_formats', args: {}, result: { formats: ['Modern'] } } as unknown as ToolOutcome;
      expect(describeOutcomes([outcome])).to.equal('I called list formats, but I cannot describe its result.');
      expect(toolSummary(outcome)).to.equal('done');
      expect(describeOutcomes([null as unknown as ToolOutcome])).to.equal('I could not get the result of a tool: the tool returned no result.');
      expect(toolSummary(null as unknown as ToolOutcome)).to.equal('failed: the tool returned no result');
    });

    it('says so when there is nothing to describe, and when a tool returned no result', () => {
      expect(describeOutcomes([])).to.equal('I have no tool results to describe.');
      expect(describeOutcomes([{ tool: 'optimize_sideboard', args: {} }])).to.equal('I could not get the sideboard suggestions: the tool returned no result.');
    });
  });

  describe('get_format_meta_rankings', () => {
    const prose = describeOutcomes([ok('get_format_meta_rankings', RANKINGS, { format: 'Modern' })]);

    it('names the format and the window, then the top 8 with share, change and win rate', () => {
      expectAll(prose, ['Modern', '2026-07-10 to 2026-08-08', '30 days', '2887 decks', '3531 matches', '10 archetypes; the top 8']);
      expectAll(prose, ['1. **Boros Energy** (WR): 11.47% of the meta (331 decks); -1.88 points vs the previous period (13.35%); win rate 45.4% over 659 matches.']);
      expectAll(prose, ['**Goryo Reanimator**', '8.9%', '5. **Unknown (UR)**: 4.99%', '+2.47 points', '52.6% over 498 matches', '8. **Dimir Frog**']);
      expect(prose).not.to.include('9. ');
      expect(prose).not.to.include('Mono Red Prowess (');
    });

    it('closes with the biggest riser and faller over all rows', () => {
      expectAll(prose, ['2026-06-10 to 2026-07-09, 3063 decks', 'the biggest riser is Goryo Reanimator (+2.47 points)', 'the biggest faller is Boros Energy (-1.88 points)']);
    });

    it('says when a row has too few matches for a win rate', () => {
      const few = describeOutcomes([ok('get_format_meta_rankings', { ...RANKINGS, data: RANKINGS.data.slice(-1) })]);
      expectAll(few, ['**Hardened Scales**', '0.1% of the meta (3 decks)', 'too few matches for a win rate (2 matches)', '1 archetype by current meta share']);
    });

    it('leaves the change out when there is no previous share', () => {
      const row = { ...RANKINGS.data[0], meta_share_previous: null, meta_share_change: null };
      const text = describeOutcomes([ok('get_format_meta_rankings', { data: [row], metadata: { ...RANKINGS.metadata, previous_period: undefined } })]);
      expect(text).to.include('11.47%');
      expect(text).not.to.include('points');
      expect(text).not.to.include('Compared with');
    });

    it('describes colour-identity rows by their colours and members', () => {
      const text = describeOutcomes([ok('get_format_meta_rankings', RANKINGS_BY_COLOUR, { format: 'Modern', group_by: 'color_identity' })]);
      expectAll(text, ['by colour identity', '3 colour identities', '**WR (white-red)**: 14.2% of the meta (410 decks)', 'includes Boros Energy, Boros Aggro and Mardu Energy', '**C (colourless)**', 'too few matches for a win rate', 'the biggest riser is WUBG (+2.47 points)', 'the biggest faller is WR (-0.81 points)']);
      expectNoJson(text);
      expect(toolSummary(ok('get_format_meta_rankings', RANKINGS_BY_COLOUR))).to.equal('Modern: 3 colour identities; top: WR 14.2%, WUBG 8.9%, C 6.3%');
    });

    it('summarises in one line with the top shares', () => {
      const summary = toolSummary(ok('get_format_meta_rankings', RANKINGS));
      expect(summary).to.match(/^Modern: 10 archetypes; top: Boros Energy 11\.47%, Goryo Reanimator 8\.9%, Amulet Titan 6\.1%, .*…$/);
      expect(summary.length).to.be.at.most(160);
    });
  });

  describe('get_format_matchup_stats', () => {
    const prose = describeOutcomes([ok('get_format_matchup_stats', MATCHUPS)]);

    it('names the format, window and matches, then best and worst matchups with 10+ matches', () => {
      expectAll(prose, ['**Pioneer matchups**', '2026-07-10 to 2026-08-08', '310 matches', '5 archetypes in the matrix']);
      expectAll(prose, ['**Mono Red Aggro** (54 matches): best against Izzet Phoenix (61.5% over 13 matches), worst against Golgari Midrange (36.4% over 12 matches).']);
      expectAll(prose, ['**Unknown (UR)** (35 matches): best against Mono Red Aggro (56.3% over 16 matches), worst against Izzet Phoenix (40% over 10 matches).']);
      expectAll(prose, ['**Golgari Midrange** (21 matches): only one opponent met 10+ times: Mono Red Aggro (63.6% over 12 matches).']);
      expectAll(prose, ['**Azorius Control** (2 matches): no opponent met 10 or more times.']);
      expectAll(prose, ['Win rates under 3 matches are null']);
      expect(prose).not.to.include('70%');
    });

    it('summarises the most played archetypes', () => {
      expect(toolSummary(ok('get_format_matchup_stats', MATCHUPS))).to.equal('Pioneer: 310 matches, 5 archetypes; most played: Mono Red Aggro, Unknown (UR), Izzet Phoenix, Golgari Midrange, Azorius Control');
    });
  });

  describe('get_format_archetypes', () => {
    it('names the format, window and decks, then archetypes with shares and colours', () => {
      const prose = describeOutcomes([ok('get_format_archetypes', ARCHETYPES)]);
      expectAll(prose, ['**Legacy archetypes**', '2026-07-10 to 2026-08-08', '1358 decks', '4 archetypes', '1. **Dimir Tempo**: 10.6% of the meta, UB (blue-black).', '**Doomsday**: 7.58%', 'UR (blue-red)', 'C (colourless)']);
      expect(toolSummary(ok('get_format_archetypes', ARCHETYPES))).to.equal('Legacy: 4 archetypes; top: Dimir Tempo 10.6%, Doomsday 7.58%, Sneak and Show 6.04%, Eldrazi 5.3%');
    });
  });

  describe('get_enriched_deck', () => {
    const prose = describeOutcomes([ok('get_enriched_deck', ENRICHED)]);

    it('gives the counts, a breakdown by type and the colours of the main deck', () => {
      expectAll(prose, ['16 main-deck cards and 4 sideboard cards', 'Main deck: 8 creatures, 4 instants, 2 lands and 2 other cards; colours WR (white-red).']);
    });

    it('lists each unmatched name with its suggestions, and the other errors once', () => {
      expectAll(prose, ['Not recognised (1):', '- Lightnig Bolt (4, main deck, line 5): did you mean Lightning Bolt?', 'Problems reading the list:', '- line 9: no quantity: “Bolt the bird”']);
      expect(prose.match(/Lightnig Bolt/g)).to.have.length(1);
    });

    it('summarises the counts and the unmatched names', () => {
      expect(toolSummary(ok('get_enriched_deck', ENRICHED))).to.equal('16 main-deck + 4 sideboard cards; 1 unmatched: Lightnig Bolt');
      expect(toolSummary(ok('get_enriched_deck', { ...ENRICHED, unmatched: [], errors: [] }))).to.equal('16 main-deck + 4 sideboard cards; all cards matched');
    });
  });

  describe('get_deck_matchup_stats', () => {
    const prose = describeOutcomes([ok('get_deck_matchup_stats', DECK_MATCHUPS)]);

    it('gives the overall record and the best and worst three matchups with 5+ matches', () => {
      expectAll(prose, ['**Boros Energy in Modern**', '45.4% over 659 matches (290-349-20 W-L-D) overall', '9 archetypes']);
      expectAll(prose, ['Best matchups with at least 5 matches:\n- Dimir Frog: 65% over 20 matches (13-7-0 W-L-D)\n- Jeskai Control: 61.1% over 36 matches (22-14-0 W-L-D)\n- Eldrazi Ramp: 58.3%']);
      expectAll(prose, ['Worst matchups:\n- Goryo Reanimator: 33.8% over 69 matches (22-43-4 W-L-D)\n- Amulet Titan: 38.8% over 50 matches (19-30-1 W-L-D)\n- Living End: 44.8%']);
      expect(prose).not.to.include('Mono Red Prowess');
    });

    it('lists every matchup when there are only a few', () => {
      const few = describeOutcomes([ok('get_deck_matchup_stats', { ...DECK_MATCHUPS, matchup_stats: DECK_MATCHUPS.matchup_stats.slice(-2) })]);
      expectAll(few, ['none has 5 or more matches yet', 'Mono Red Prowess: 75% over 4 matches (3-1-0 W-L-D)']);
      expect(few).not.to.include('Hardened Scales');
    });

    it('summarises the overall record', () => {
      expect(toolSummary(ok('get_deck_matchup_stats', DECK_MATCHUPS))).to.equal('Boros Energy: 45.4% over 659 matches; 9 opponent archetypes');
    });
  });

  describe('generate_deck_matchup_strategy', () => {
    const prose = describeOutcomes([ok('generate_deck_matchup_strategy', STRATEGY)]);

    it('gives the record, their key and sideboard cards, your key cards, then the advice', () => {
      expectAll(prose, ['**Boros Energy vs Goryo Reanimator** (Modern, 2026-07-10 to 2026-08-08): your record is 33.8% over 69 matches.']);
      expectAll(prose, ["Their key cards across 200 recent lists: Psychic Frog (100%), Goryo's Vengeance (98.5%)", 'Thoughtseize (88%)', 'They side in: Consign to Memory (62.5%), Flusterstorm (41%) and Endurance (33%).']);
      expectAll(prose, ['Your key cards: 4 Galvanic Discharge (in 99.3% of Boros Energy lists)', '4 Ocelot Pride (in 90% of Boros Energy lists)']);
      expectAll(prose, ['**Advice**', 'Plan around their staples', OFFLINE_NOTICE]);
      expect(prose).not.to.include('Solitude');
    });

    it('does not repeat the advice\'s own title', () => {
      expect(prose.match(/\*\*Boros Energy vs Goryo Reanimator\*\*/g)).to.have.length(1);
    });

    it('summarises the record and their cards', () => {
      const summary = toolSummary(ok('generate_deck_matchup_strategy', STRATEGY));
      expect(summary).to.match(/^Boros Energy vs Goryo Reanimator: 33\.8% over 69 matches; their key cards: Psychic Frog 100%, /);
    });
  });

  describe('optimize_mainboard', () => {
    const prose = describeOutcomes([ok('optimize_mainboard', MAINBOARD)]);

    it('gives the record against the top archetypes, the flex spots and each recommendation', () => {
      expectAll(prose, ['**Boros Energy main deck** (Modern; colours WR, white-red), from 300 recent Boros Energy lists, 2026-07-10 to 2026-08-08.']);
      expectAll(prose, ['- Goryo Reanimator (8.9% of the meta): your record 33.8% over 69 matches (22-43-4 W-L-D)', 'Eldrazi Ramp (5.72% of the meta)']);
      expectAll(prose, ["3 Phlage, Titan of Fire's Fury (in 0% of lists) and 1 Static Prison (in 12.3% of lists)"]);
      expectAll(prose, ["- Add 2 Thraben Charm (Instant, 1W) replacing Phlage, Titan of Fire's Fury: in 89% of the archetype's lists and 0% of the top archetypes' lists."]);
      expectAll(prose, ['Add 1 Seasoned Pyromancer (Creature — Human Shaman, 1RR)', '41.7%', '3.4%', 'Add 1 Wrenn and Realmbreaker (Legendary Planeswalker — Wrenn, 1(G/W)(G/W)): in 7.5%', '12.25%']);
      expectAll(prose, ['**Explanation**', 'Swap the slow threats for cheap interaction']);
      expect(prose.match(/\*\*Boros Energy main deck\*\*/g)).to.have.length(1);
    });

    it('summarises the flex spots and additions', () => {
      expect(toolSummary(ok('optimize_mainboard', MAINBOARD))).to.equal('Boros Energy: 2 flex spots, 3 recommendations: +2 Thraben Charm, +1 Seasoned Pyromancer, +1 Wrenn and Realmbreaker');
    });
  });

  describe('optimize_sideboard', () => {
    const prose = describeOutcomes([ok('optimize_sideboard', SIDEBOARD)]);

    it('gives the changes, the plan per top archetype and the final 15', () => {
      expectAll(prose, ['**Boros Energy sideboard** (Modern; colours WR, white-red), from 300 recent Boros Energy lists']);
      expectAll(prose, ['- Cut 2 Rest in Peace (2 → 0): sided by 4.3%', '- Adjust Surgical Extraction (2 → 3): sided by 71.2%', '- Add 2 Vexing Bauble (0 → 2): sided by 83.7%']);
      expectAll(prose, ['- Keep 3 Wrath of the Skies, 2 Blood Moon, 2 Wear // Tear, 2 High Noon and 1 Celestial Purge.']);
      expectAll(prose, ['- vs Goryo Reanimator — 8.9% of the meta, your record 33.8% over 69 matches (22-43-4 W-L-D): bring in Vexing Bauble (41.3% with it over 48 matches vs 19% without over 21) and Surgical Extraction (36.8% with it over 40 matches vs 30.8% without over 29).']);
      expectAll(prose, ['- vs Amulet Titan — 6.1% of the meta', 'no card of the final sideboard did clearly better']);
      expectAll(prose, ['Final sideboard (15): 3 Surgical Extraction, 3 Wrath of the Skies, 2 Blood Moon, 2 Vexing Bauble, 2 Wear // Tear, 2 High Noon, 1 Celestial Purge.']);
      expectAll(prose, ['**Explanation**', OFFLINE_NOTICE]);
      expect(prose).not.to.include('for Modern against Goryo Reanimator (8.9%)');
    });

    it('summarises the changes from and to', () => {
      expect(toolSummary(ok('optimize_sideboard', SIDEBOARD))).to.equal('Boros Energy sideboard: 3 changes: Rest in Peace 2→0, Surgical Extraction 2→3, Vexing Bauble 0→2');
    });
  });
});
