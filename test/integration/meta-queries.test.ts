/**
 * The meta tools' MongoDB side on a tiny hand-made dataset: MetaQueries' aggregations and the format
 * tools built on them (format-meta.ts), with every expected number computed by hand below.
 *
 * Fixture (newest tournament 2026-03-10, so the 14-day windows are 02-25..03-10 and 02-11..02-24):
 *
 *   Modern decks                       current 14d (02-25..03-10)   previous 14d (02-11..02-24)   older
 *   Boros Energy   (WR, one R)         d1 d2 d6 d10(R)       = 4    d13 d18               = 2     d21 (02-10)
 *   Izzet Murktide (UR)                d3 d7 d11             = 3    d14 d15 d16 d19       = 4     d22 (02-10)
 *   Amulet Titan   (G, one RG)         d4 d8(RG) d9          = 3    d17 d20               = 2     d23 (01-30)
 *   Unknown (UR)   (UR)                d5 d12                = 2    -                     = 0
 *   Living End     (BR)                -                            -                             d24 (01-30)
 *                                                            12                            8
 *   Pauper: Affinity (U) p25 p26 (03-05), p29 (02-20), p30 (02-01); Kuldotha Red (R) p27 (03-05), p28 (02-20).
 *   Commander: one tournament (02-27) with one deck: never a format of the meta tools.
 *
 *   Modern matches, current window (13):
 *     m1  Boros   d1  - Izzet   d3   p1     Boros wins
 *     m2  Boros   d2  - Amulet  d4   p2     Amulet wins
 *     m3  Izzet   d3  - Unknown d5   draw
 *     m4  Boros   d1  - Boros   d2   p2     mirror
 *     m5  Amulet  d4  - (no list)    p1     Amulet wins
 *     m6  Unknown d5  - Boros   d1   p2     Boros wins
 *     m7  Boros   d6  - Izzet   d7   p2     Izzet wins
 *     m8  Izzet   d7  - Amulet  d8   p1     Izzet wins
 *     m9  Amulet  d9  - Boros   d6   draw
 *     m10 Boros   d6  - Amulet  d9   p1     Boros wins
 *     m11 Boros   d10 - Izzet   d11  p1     Boros wins
 *     m12 Izzet   d11 - Unknown d12  p2     Unknown wins
 *     m13 (no list)   - Unknown d12  p1     Unknown loses
 *   previous window (6):
 *     m14 Boros d13 - Izzet d14 p1;  m15 Izzet d14 - Izzet d15 draw (mirror);  m16 Izzet d16 - Amulet d17 p2;
 *     m17 Boros d18 - Izzet d16 p2;  m19 Izzet d19 - Amulet d20 p1;  m20 Amulet d20 - (no list) p2
 *   older: m21 Boros d21 - Izzet d22 p1 (02-10);  m22 Amulet d23 - Living End d24 p2 (01-30)
 *   Pauper: m23 Affinity p25 - Kuldotha p27 p1, m24 Affinity p26 - Kuldotha p27 draw, m25 Affinity p25 - Affinity p26 p1
 *           (03-05); m26 Kuldotha p28 - Affinity p29 p1 (02-20)
 *
 *   Records, current 14 days (mirrors left out, matches against a player without a list counted):
 *     Boros   m1 W, m2 L, m6 W, m7 L, m9 D, m10 W, m11 W   = 7 matches, 4-2-1 -> 4/6 = 66.7
 *     Izzet   m1 L, m3 D, m7 W, m8 W, m11 L, m12 L         = 6 matches, 2-3-1 -> 2/5 = 40
 *     Amulet  m2 W, m5 W, m8 L, m9 D, m10 L                = 5 matches, 2-2-1 -> 2/4 = 50
 *     Unknown m3 D, m6 L, m12 W, m13 L                     = 4 matches, 1-2-1 -> 1/3 = 33.3
 *   previous 14 days:
 *     Boros   m14 W, m17 L                                 = 2 matches -> null (below 3)
 *     Izzet   m14 L, m16 L, m17 W, m19 W (m15 mirror out)  = 4 matches, 2-2 -> 50
 *     Amulet  m16 W, m19 L, m20 L                          = 3 matches, 1-2 -> 33.3
 *     Unknown none                                         = 0 -> null
 */
import { expect } from 'chai';
import mongoose, { type Connection } from 'mongoose';
import type { ListsAdoption } from '../../actors/meta/coaching-context.js';
import { messages } from '../../actors/meta/contract.js';
import { deckMatchups, formatArchetypes, formatMatchups, metaRankings } from '../../actors/meta/format-meta.js';
import { DatasetAnswerCache } from '../../actors/meta/dataset-answer-cache.js';
import { MetaQueries } from '../../actors/meta/meta-queries.js';
import { RequestError } from '../../actors/runtime/contract.js';
import { mtgCards } from '../../models/mtg/card.js';
import { rebuildMetaAggregates } from '../../models/mtg/meta-aggregates-verification.js';
import { mtgDailyDecks } from '../../models/mtg/daily-deck-counts.js';
import { datasetMarkers } from '../../models/mtg/dataset-marker.js';
import { mtgDecklists, type MtgDecklist } from '../../models/mtg/decklist.js';
import { mtgMatches, type MtgMatch } from '../../models/mtg/match.js';
import { mtgTournaments, type MtgTournament } from '../../models/mtg/tournament.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';

const date = (day: string) => new Date(`${day}T00:00:00.000Z`);

const TOURNAMENTS: Array<[id: number, format: string, day: string]> = [
  [1, 'Modern', '2026-03-10'],
  [2, 'Modern', '2026-03-03'],
  [3, 'Modern', '2026-02-25'],
  [4, 'Modern', '2026-02-24'],
  [5, 'Modern', '2026-02-15'],
  [6, 'Modern', '2026-02-11'],
  [7, 'Modern', '2026-02-10'],
  [8, 'Modern', '2026-01-30'],
  [9, 'Pauper', '2026-03-05'],
  [10, 'Pauper', '2026-02-20'],
  [11, 'Pauper', '2026-02-01'],
  [12, 'Commander', '2026-02-27'],
];
const tournament = new Map(TOURNAMENTS.map(([id, format, day]) => [id, { format, day }]));

/** [deck id, tournament id, archetype as the dataset names it, colour] */
const DECKS: Array<[number, number, string, string]> = [
  [1, 1, 'Boros Energy', 'WR'],
  [2, 1, 'Boros Energy', 'WR'],
  [3, 1, 'Izzet Murktide', 'UR'],
  [4, 1, 'Amulet Titan', 'G'],
  [5, 1, 'Unknown', 'UR'],
  [6, 2, 'Boros Energy', 'WR'],
  [7, 2, 'Izzet Murktide', 'UR'],
  [8, 2, 'Amulet Titan', 'RG'],
  [9, 2, 'Amulet Titan', 'G'],
  [10, 3, 'Boros Energy', 'R'],
  [11, 3, 'Izzet Murktide', 'UR'],
  [12, 3, 'Unknown', 'UR'],
  [13, 4, 'Boros Energy', 'WR'],
  [14, 4, 'Izzet Murktide', 'UR'],
  [15, 4, 'Izzet Murktide', 'UR'],
  [16, 5, 'Izzet Murktide', 'UR'],
  [17, 5, 'Amulet Titan', 'G'],
  [18, 5, 'Boros Energy', 'WR'],
  [19, 6, 'Izzet Murktide', 'UR'],
  [20, 6, 'Amulet Titan', 'G'],
  [21, 7, 'Boros Energy', 'WR'],
  [22, 7, 'Izzet Murktide', 'UR'],
  [23, 8, 'Amulet Titan', 'G'],
  [24, 8, 'Living End', 'BR'],
  [25, 9, 'Affinity', 'U'],
  [26, 9, 'Affinity', 'U'],
  [27, 9, 'Kuldotha Red', 'R'],
  [28, 10, 'Kuldotha Red', 'R'],
  [29, 10, 'Affinity', 'U'],
  [30, 11, 'Affinity', 'U'],
  [31, 12, 'Atraxa', 'WUBG'],
];
const deck = new Map(DECKS.map(([id, t, archetype, color]) => [id, { t, name: archetype === 'Unknown' ? `Unknown (${color})` : archetype }]));

/** [match id, tournament id, deck1, deck2, result]; null: a player who published no list. */
const MATCHES: Array<[number, number, number | null, number | null, MtgMatch['result']]> = [
  [1, 1, 1, 3, 'p1'],
  [2, 1, 2, 4, 'p2'],
  [3, 1, 3, 5, 'draw'],
  [4, 1, 1, 2, 'p2'],
  [5, 1, 4, null, 'p1'],
  [6, 1, 5, 1, 'p2'],
  [7, 2, 6, 7, 'p2'],
  [8, 2, 7, 8, 'p1'],
  [9, 2, 9, 6, 'draw'],
  [10, 2, 6, 9, 'p1'],
  [11, 3, 10, 11, 'p1'],
  [12, 3, 11, 12, 'p2'],
  [13, 3, null, 12, 'p1'],
  [14, 4, 13, 14, 'p1'],
  [15, 4, 14, 15, 'draw'],
  [16, 5, 16, 17, 'p2'],
  [17, 5, 18, 16, 'p2'],
  [19, 6, 19, 20, 'p1'],
  [20, 6, 20, null, 'p2'],
  [21, 7, 21, 22, 'p1'],
  [22, 8, 23, 24, 'p2'],
  [23, 9, 25, 27, 'p1'],
  [24, 9, 26, 27, 'draw'],
  [25, 9, 25, 26, 'p1'],
  [26, 10, 28, 29, 'p1'],
];

function tournamentDoc([id, format, day]: (typeof TOURNAMENTS)[number]): MtgTournament {
  return {
    _id: id,
    key: `test:${id}`,
    source: 'test',
    name: `${format} Challenge ${day}`,
    format,
    date: date(day),
    day,
    start_time: null,
    url: null,
    kind: 'challenge',
    player_count: null,
    deck_count: null,
    round_count: null,
    match_count: null,
    has_swiss_rounds: true,
  };
}

function deckDoc([id, t, archetype, color]: (typeof DECKS)[number]): MtgDecklist {
  const { format, day } = tournament.get(t)!;
  // A few cards so adoption has something to count: Lightning Bolt everywhere, one card of the deck's own, a sideboard card in blue decks.
  return {
    _id: id,
    tournament_id: t,
    format,
    date: date(day),
    day,
    player: `player${id}`,
    result: null,
    rank: null,
    points: null,
    wins: null,
    losses: null,
    draws: null,
    archetype,
    archetype_color: color,
    archetype_method: 'test',
    archetype_name: deck.get(id)!.name,
    companion: null,
    mainboard: [
      { card: 'Lightning Bolt', count: 4 },
      { card: `Deck ${id} card`, count: 1 },
    ],
    sideboard: color.includes('U') ? [{ card: 'Mystical Dispute', count: 2 }] : [],
  };
}

function matchDoc([id, t, d1, d2, result]: (typeof MATCHES)[number]): MtgMatch {
  const { format, day } = tournament.get(t)!;
  return {
    _id: id,
    tournament_id: t,
    format,
    date: date(day),
    day,
    round: 'Round 1',
    round_number: 1,
    deck1_id: d1,
    deck2_id: d2,
    deck1_archetype: d1 === null ? null : deck.get(d1)!.name,
    deck2_archetype: d2 === null ? null : deck.get(d2)!.name,
    ...(d1 === null ? { player1: 'no list' } : {}),
    ...(d2 === null ? { player2: 'no list' } : {}),
    games: result === 'p1' ? '2-0-0' : result === 'p2' ? '0-2-0' : '1-1-1',
    result,
  };
}

/** The error a rejected promise carries, which must be a RequestError. */
async function requestError(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(RequestError);
    return error as RequestError;
  }
  expect.fail('expected a RequestError');
}

describe('MetaQueries and the format meta tools on a hand-made dataset', function () {
  this.timeout(30_000);
  let target: MongoTarget;
  let connection: Connection;
  let queries: MetaQueries;
  const rankings = (args: Record<string, unknown>) => metaRankings(queries, messages.get_format_meta_rankings.parse(args));
  const matchups = (args: Record<string, unknown>) => formatMatchups(queries, messages.get_format_matchup_stats.parse(args));
  const archetypes = (args: Record<string, unknown>) => formatArchetypes(queries, messages.get_format_archetypes.parse(args));
  const deckStats = (args: Record<string, unknown>) => deckMatchups(queries, messages.get_deck_matchup_stats.parse(args));

  before(async () => {
    target = await mongoTarget();
    connection = await mongoose.createConnection(target.uri, { dbName: uniqueDbName('meta_queries') }).asPromise();
    await mtgTournaments(connection).insertMany(TOURNAMENTS.map(tournamentDoc));
    await mtgDecklists(connection).insertMany(DECKS.map(deckDoc));
    await mtgMatches(connection).insertMany(MATCHES.map(matchDoc));
    // The meta tools read the daily counts a load writes; these documents were inserted by hand.
    await rebuildMetaAggregates(connection);
    await mtgCards(connection).insertMany(
      [
        ['Lightning Bolt', '{R}', 1, 'Instant', ['R']],
        ['Mystical Dispute', '{2}{U}', 3, 'Instant', ['U']],
      ].map(([name, mana_cost, mana_value, type_line, colors], i) => ({
        _id: i,
        name,
        full_name: null,
        mana_cost,
        mana_value,
        type_line,
        colors,
        color_identity: colors,
        is_land: false,
        lookup_keys: [String(name).toLowerCase().replace(/[^a-z]/g, '')],
      })),
    );
    queries = new MetaQueries(connection);
  });

  after(async () => {
    if (connection) {
      await connection.dropDatabase().catch(() => {});
      await connection.close();
    }
    await target?.stop();
  });

  describe('formats and windows', () => {
    it('lists the constructed formats, leaving Commander out, and resolves them in any case', async () => {
      expect(await queries.formats()).to.deep.equal(['Modern', 'Pauper']);
      expect(await queries.resolveFormat(' pauper ')).to.equal('Pauper');
      expect(await queries.newestDay()).to.equal('2026-03-10');
    });

    it('rejects an unknown format, and Commander, listing the valid ones', async () => {
      for (const format of ['Legacy', 'Commander']) {
        const error = await requestError(rankings({ format }));
        expect(error.code).to.equal('not_found');
        expect(error.message).to.equal(`unknown format '${format}'; valid formats: Modern, Pauper`);
        expect(error.details).to.deep.equal({ valid: ['Modern', 'Pauper'] });
      }
      for (const run of [() => matchups({ format: 'Vintage' }), () => archetypes({ format: 'Vintage' }), () => deckStats({ format: 'Vintage', archetype: 'Boros Energy' })]) {
        expect((await requestError(run())).code).to.equal('not_found');
      }
    });

    it('ends every window at the newest tournament in the data, not today and not the format\'s own newest', async () => {
      // Pauper's newest tournament is 03-05, but windows end at the data's newest day, 03-10:
      // 14 days = 02-25..03-10 holds only the 03-05 tournament: Affinity 2 of 3 decks = 66.67, Kuldotha Red 1/3 = 33.33.
      const pauper = await archetypes({ format: 'Pauper', days: 14 });
      expect(pauper).to.deep.equal({
        format: 'Pauper',
        archetypes: [
          { id: 'affinity', name: 'Affinity', meta_share: 66.67, color_identity: 'U' },
          { id: 'kuldotha-red', name: 'Kuldotha Red', meta_share: 33.33, color_identity: 'R' },
        ],
        metadata: { days: 14, period: { start: '2026-02-25', end: '2026-03-10', days: 14 }, decks: 3, newest_tournament: '2026-03-10' },
      });
    });
  });

  describe('get_format_meta_rankings', () => {
    it('ranks archetypes with shares, sample sizes, win rates and match counts in both windows', async () => {
      const answer = await rankings({ format: 'modern', current_days: 14, previous_days: 14 });
      /**
       * Shares now (12 decks): Boros 4/12 = 33.33, Izzet 3/12 = 25, Amulet 25, Unknown 2/12 = 16.67.
       * Shares before (8 decks): Boros 2/8 = 25, Izzet 4/8 = 50, Amulet 25, Unknown 0.
       * Order: decks now, then decks before: Boros 4; Izzet 3 (4 before) ahead of Amulet 3 (2 before); Unknown 2.
       * Colours: Boros 3 WR + 1 R -> WR; Amulet 2 G + 1 RG -> G.
       */
      expect(answer.data).to.deep.equal([
        {
          archetype: 'Boros Energy',
          id: 'boros-energy',
          color_identity: 'WR',
          meta_share_current: 33.33,
          meta_share_previous: 25,
          meta_share_change: 8.33, // 33.33 - 25
          sample_size_current: 4,
          sample_size_previous: 2,
          win_rate_current: 66.7,
          win_rate_previous: null, // 2 matches
          match_count_current: 7,
          match_count_previous: 2,
        },
        {
          archetype: 'Izzet Murktide',
          id: 'izzet-murktide',
          color_identity: 'UR',
          meta_share_current: 25,
          meta_share_previous: 50,
          meta_share_change: -25,
          sample_size_current: 3,
          sample_size_previous: 4,
          win_rate_current: 40,
          win_rate_previous: 50,
          match_count_current: 6,
          match_count_previous: 4,
        },
        {
          archetype: 'Amulet Titan',
          id: 'amulet-titan',
          color_identity: 'G',
          meta_share_current: 25,
          meta_share_previous: 25,
          meta_share_change: 0,
          sample_size_current: 3,
          sample_size_previous: 2,
          win_rate_current: 50,
          win_rate_previous: 33.3,
          match_count_current: 5,
          match_count_previous: 3,
        },
        {
          archetype: 'Unknown (UR)',
          id: 'unknown-ur',
          color_identity: 'UR',
          meta_share_current: 16.67,
          meta_share_previous: 0,
          meta_share_change: 16.67,
          sample_size_current: 2,
          sample_size_previous: 0,
          win_rate_current: 33.3,
          win_rate_previous: null,
          match_count_current: 4,
          match_count_previous: 0,
        },
      ]);
      const { timestamp, ...metadata } = answer.metadata;
      expect(Date.parse(timestamp)).to.not.be.NaN;
      expect(metadata).to.deep.equal({
        format: 'Modern',
        group_by: 'archetype',
        color_identity: null,
        // 13 matches now (m1..m13), 6 before (m14..m17, m19, m20); decks 12 and 8
        current_period: { start: '2026-02-25', end: '2026-03-10', days: 14, decks: 12, matches: 13 },
        previous_period: { start: '2026-02-11', end: '2026-02-24', days: 14, decks: 8, matches: 6 },
        newest_tournament: '2026-03-10',
        min_matches_for_win_rate: 3,
      });
    });

    it('uses 30-day windows by default, and lists an archetype seen only in the previous window', async () => {
      /**
       * Current 02-09..03-10: the 14-day windows plus 02-10 (d21 Boros, d22 Izzet; m21 Boros beats Izzet).
       *   Decks 12 + 8 + 2 = 22: Izzet 3+4+1 = 8 (36.36), Boros 4+2+1 = 7 (31.82), Amulet 3+2 = 5 (22.73), Unknown 2 (9.09).
       *   Matches 13 + 6 + 1 = 20.
       *   Boros  7 + 2 + m21 W = 10 matches, 6-3-1 -> 6/9 = 66.7
       *   Izzet  6 + 4 + m21 L = 11 matches, 4-6-1 -> 4/10 = 40
       *   Amulet 5 + 3         =  8 matches, 3-4-1 -> 3/7 = 42.9
       * Previous 01-10..02-08: 01-30 only: Amulet d23 and Living End d24 (50% each), m22 Living End beats Amulet.
       *   Living End: no deck now (share 0, colour from the previous window: BR), 1 match before (null).
       */
      const answer = await rankings({ format: 'Modern' });
      expect(answer.metadata.current_period).to.deep.equal({ start: '2026-02-09', end: '2026-03-10', days: 30, decks: 22, matches: 20 });
      expect(answer.metadata.previous_period).to.deep.equal({ start: '2026-01-10', end: '2026-02-08', days: 30, decks: 2, matches: 1 });
      const row = (r: (typeof answer.data)[number]) => [
        r.archetype,
        r.color_identity,
        r.meta_share_current,
        r.meta_share_previous,
        r.meta_share_change,
        r.sample_size_current,
        r.sample_size_previous,
        r.win_rate_current,
        r.win_rate_previous,
        r.match_count_current,
        r.match_count_previous,
      ];
      expect(answer.data.map(row)).to.deep.equal([
        ['Izzet Murktide', 'UR', 36.36, 0, 36.36, 8, 0, 40, null, 11, 0],
        ['Boros Energy', 'WR', 31.82, 0, 31.82, 7, 0, 66.7, null, 10, 0],
        ['Amulet Titan', 'G', 22.73, 50, -27.27, 5, 1, 42.9, null, 8, 1],
        ['Unknown (UR)', 'UR', 9.09, 0, 9.09, 2, 0, 33.3, null, 4, 0],
        ['Living End', 'BR', 0, 50, -50, 0, 1, null, null, 0, 1],
      ]);
    });

    it('filters by colour identity, normalising the letters', async () => {
      for (const color of ['ur', 'RU', 'u/r']) {
        const answer = await rankings({ format: 'Modern', current_days: 14, previous_days: 14, color_identity: color });
        expect(answer.metadata.color_identity).to.equal('UR');
        expect(answer.data.map((r) => [r.archetype, r.sample_size_current, r.meta_share_current])).to.deep.equal([
          ['Izzet Murktide', 3, 25],
          ['Unknown (UR)', 2, 16.67],
        ]);
        // The window's totals are not filtered.
        expect(answer.metadata.current_period).to.include({ decks: 12, matches: 13 });
      }
      // Amulet Titan is G (2 G decks against 1 RG): it is found by G, not by RG.
      expect((await rankings({ format: 'Modern', current_days: 14, previous_days: 14, color_identity: 'g' })).data.map((r) => r.archetype)).to.deep.equal(['Amulet Titan']);
      expect((await rankings({ format: 'Modern', current_days: 14, previous_days: 14, color_identity: 'RG' })).data).to.deep.equal([]);
    });

    it('rejects a colour identity that is not one, as bad_request', async () => {
      for (const color of ['purple', 'UU', 'x']) {
        const error = await requestError(rankings({ format: 'Modern', color_identity: color }));
        expect(error.code, color).to.equal('bad_request');
        expect(error.message).to.include(`color_identity '${color}' is not a colour combination`);
      }
    });

    it('groups by colour identity: shares and samples add up; matches inside a group are its mirrors', async () => {
      /**
       * UR = Izzet + Unknown (UR): shares 25 + 16.67 = 41.67 now, 50 + 0 = 50 before (change -8.33);
       *      decks 3 + 2 = 5 now, 4 + 0 = 4 before.
       *      Now, m3 (Izzet-Unknown draw) and m12 (Unknown beats Izzet) are UR-vs-UR: mirrors, left out.
       *      Left: Izzet m1 L, m7 W, m8 W, m11 L; Unknown m6 L, m13 L = 6 matches, 2-4 -> 33.3.
       *      Before: Izzet's 4 (2-2) -> 50 (m15, Izzet's own mirror, is out as before).
       * WR = Boros alone, G = Amulet alone: the same as their archetype rows.
       * Order: decks now 5 (UR), 4 (WR), 3 (G).
       */
      const answer = await rankings({ format: 'Modern', current_days: 14, previous_days: 14, group_by: 'color_identity' });
      expect(answer.metadata.group_by).to.equal('color_identity');
      expect(answer.data).to.deep.equal([
        {
          archetypes: ['Izzet Murktide', 'Unknown (UR)'],
          color_identity: 'UR',
          meta_share_current: 41.67,
          meta_share_previous: 50,
          meta_share_change: -8.33,
          sample_size_current: 5,
          sample_size_previous: 4,
          win_rate_current: 33.3,
          win_rate_previous: 50,
          match_count_current: 6,
          match_count_previous: 4,
        },
        {
          archetypes: ['Boros Energy'],
          color_identity: 'WR',
          meta_share_current: 33.33,
          meta_share_previous: 25,
          meta_share_change: 8.33,
          sample_size_current: 4,
          sample_size_previous: 2,
          win_rate_current: 66.7,
          win_rate_previous: null,
          match_count_current: 7,
          match_count_previous: 2,
        },
        {
          archetypes: ['Amulet Titan'],
          color_identity: 'G',
          meta_share_current: 25,
          meta_share_previous: 25,
          meta_share_change: 0,
          sample_size_current: 3,
          sample_size_previous: 2,
          win_rate_current: 50,
          win_rate_previous: 33.3,
          match_count_current: 5,
          match_count_previous: 3,
        },
      ]);
      // Grouping and a colour filter together: the UR group alone.
      const ur = await rankings({ format: 'Modern', current_days: 14, previous_days: 14, group_by: 'color_identity', color_identity: 'RU' });
      expect(ur.data.map((r) => [r.color_identity, r.archetypes, r.sample_size_current, r.match_count_current])).to.deep.equal([['UR', ['Izzet Murktide', 'Unknown (UR)'], 5, 6]]);
    });
  });

  describe('get_format_matchup_stats', () => {
    it('builds the head-to-head matrix of the window', async () => {
      /**
       * Cells (row's record against the column; only matches with both lists):
       *   Boros-Izzet   m1 W, m7 L, m11 W   3 matches, 2-1   -> 66.7    Izzet-Boros   1-2 -> 33.3
       *   Boros-Amulet  m2 L, m9 D, m10 W   3 matches, 1-1-1 -> 50      Amulet-Boros  1-1-1 -> 50
       *   Boros-Boros   m4 (mirror)         1 match          -> null
       *   Boros-Unknown m6 W                1 match          -> null    Unknown-Boros 1
       *   Izzet-Unknown m3 D, m12 L         2 matches        -> null    Unknown-Izzet 2
       *   Izzet-Amulet  m8 W                1 match          -> null    Amulet-Izzet  1
       * Archetypes by matches against known lists (a row's cells): Boros 1 + 3 + 3 + 1 = 8, Izzet 3 + 1 + 2 = 6,
       * Amulet 3 + 1 = 4, Unknown 2 + 1 = 3.
       */
      const answer = await matchups({ format: 'Modern', days: 14 });
      expect(answer.archetypes).to.deep.equal(['Boros Energy', 'Izzet Murktide', 'Amulet Titan', 'Unknown (UR)']);
      expect(answer.matrix).to.deep.equal({
        'Boros Energy': {
          'Boros Energy': { win_rate: null, match_count: 1 },
          'Amulet Titan': { win_rate: 50, match_count: 3 },
          'Izzet Murktide': { win_rate: 66.7, match_count: 3 },
          'Unknown (UR)': { win_rate: null, match_count: 1 },
        },
        'Amulet Titan': {
          'Boros Energy': { win_rate: 50, match_count: 3 },
          'Izzet Murktide': { win_rate: null, match_count: 1 },
        },
        'Izzet Murktide': {
          'Boros Energy': { win_rate: 33.3, match_count: 3 },
          'Amulet Titan': { win_rate: null, match_count: 1 },
          'Unknown (UR)': { win_rate: null, match_count: 2 },
        },
        'Unknown (UR)': {
          'Boros Energy': { win_rate: null, match_count: 1 },
          'Izzet Murktide': { win_rate: null, match_count: 2 },
        },
      });
      // 13 matches in the window (m1..m13), the two against players without a list (m5, m13) included
      expect(answer.metadata).to.deep.equal({
        format: 'Modern',
        days: 14,
        period: { start: '2026-02-25', end: '2026-03-10', days: 14 },
        matches: 13,
        newest_tournament: '2026-03-10',
        min_matches_for_win_rate: 3,
      });
    });

    it('adds a pair\'s matches over a longer window', async () => {
      /**
       * Pauper, 30 days (02-09..03-10): m23 Affinity W, m24 D, m26 Affinity L; m25 Affinity mirror.
       *   Affinity-Kuldotha 3 matches, 1-1-1 -> 50; Kuldotha-Affinity 1-1-1 -> 50; Affinity-Affinity 1 -> null.
       *   Order by matches against known lists: Affinity 1 + 3 = 4, Kuldotha Red 3.
       */
      const answer = await matchups({ format: 'Pauper', days: 30 });
      expect(answer.archetypes).to.deep.equal(['Affinity', 'Kuldotha Red']);
      expect(answer.matrix).to.deep.equal({
        Affinity: { Affinity: { win_rate: null, match_count: 1 }, 'Kuldotha Red': { win_rate: 50, match_count: 3 } },
        'Kuldotha Red': { Affinity: { win_rate: 50, match_count: 3 } },
      });
      expect(answer.metadata.matches).to.equal(4);
    });
  });

  describe('get_format_archetypes', () => {
    it('lists the archetypes of the window by share', async () => {
      expect(await archetypes({ format: 'Modern', days: 14 })).to.deep.equal({
        format: 'Modern',
        archetypes: [
          { id: 'boros-energy', name: 'Boros Energy', meta_share: 33.33, color_identity: 'WR' },
          { id: 'amulet-titan', name: 'Amulet Titan', meta_share: 25, color_identity: 'G' },
          { id: 'izzet-murktide', name: 'Izzet Murktide', meta_share: 25, color_identity: 'UR' },
          { id: 'unknown-ur', name: 'Unknown (UR)', meta_share: 16.67, color_identity: 'UR' },
        ],
        metadata: { days: 14, period: { start: '2026-02-25', end: '2026-03-10', days: 14 }, decks: 12, newest_tournament: '2026-03-10' },
      });
      // 30 days, 22 decks: Izzet 8/22 = 36.36, Boros 7/22 = 31.82 (6 WR + 1 R -> WR), Amulet 5/22 = 22.73, Unknown 2/22 = 9.09
      const month = await archetypes({ format: 'Modern', days: 30 });
      expect(month.archetypes.map((a) => [a.name, a.meta_share, a.color_identity])).to.deep.equal([
        ['Izzet Murktide', 36.36, 'UR'],
        ['Boros Energy', 31.82, 'WR'],
        ['Amulet Titan', 22.73, 'G'],
        ['Unknown (UR)', 9.09, 'UR'],
      ]);
      expect(month.metadata.decks).to.equal(22);
    });
  });

  describe('get_deck_matchup_stats', () => {
    it('gives one archetype\'s row of the matrix, by match count, and its overall record', async () => {
      // Boros row: Amulet 3 (1-1-1), Izzet 3 (2-1), then 1 match each: Boros mirror (1-1), Unknown (1-0); ties by name.
      // Overall: 7 matches, 4-2-1 -> 66.7 (the mirror left out).
      for (const name of ['Boros Energy', 'boros energy', 'boros-energy']) {
        const answer = await deckStats({ format: 'Modern', archetype: name, days: 14 });
        expect(answer).to.deep.equal({
          archetype: 'Boros Energy',
          format: 'Modern',
          days: 14,
          matchup_stats: [
            { opponent_archetype: 'Amulet Titan', win_rate: 50, match_count: 3, wins: 1, losses: 1, draws: 1 },
            { opponent_archetype: 'Izzet Murktide', win_rate: 66.7, match_count: 3, wins: 2, losses: 1, draws: 0 },
            { opponent_archetype: 'Boros Energy', win_rate: null, match_count: 1, wins: 1, losses: 1, draws: 0 },
            { opponent_archetype: 'Unknown (UR)', win_rate: null, match_count: 1, wins: 1, losses: 0, draws: 0 },
          ],
          overall: { win_rate: 66.7, match_count: 7, wins: 4, losses: 2, draws: 1 },
          metadata: { period: { start: '2026-02-25', end: '2026-03-10', days: 14 }, newest_tournament: '2026-03-10', min_matches_for_win_rate: 3 },
        });
      }
    });

    it('counts matches against players without a list in the overall record only', async () => {
      // Unknown (UR): Izzet 2 (m3 D, m12 W), Boros 1 (m6 L); overall adds m13 L: 4 matches, 1-2-1 -> 33.3
      const unknown = await deckStats({ format: 'Modern', archetype: 'unknown-ur', days: 14 });
      expect(unknown.archetype).to.equal('Unknown (UR)');
      expect(unknown.matchup_stats).to.deep.equal([
        { opponent_archetype: 'Izzet Murktide', win_rate: null, match_count: 2, wins: 1, losses: 0, draws: 1 },
        { opponent_archetype: 'Boros Energy', win_rate: null, match_count: 1, wins: 0, losses: 1, draws: 0 },
      ]);
      expect(unknown.overall).to.deep.equal({ win_rate: 33.3, match_count: 4, wins: 1, losses: 2, draws: 1 });
      // Amulet Titan: Boros 3 (1-1-1), Izzet 1 (L); overall adds m5 W: 5 matches, 2-2-1 -> 50
      const amulet = await deckStats({ format: 'Modern', archetype: 'AMULET TITAN', days: 14 });
      expect(amulet.matchup_stats.map((m) => [m.opponent_archetype, m.match_count])).to.deep.equal([
        ['Boros Energy', 3],
        ['Izzet Murktide', 1],
      ]);
      expect(amulet.overall).to.deep.equal({ win_rate: 50, match_count: 5, wins: 2, losses: 2, draws: 1 });
    });

    it('knows archetypes from the whole data, with an empty record when the window has none', async () => {
      const answer = await deckStats({ format: 'Modern', archetype: 'Living End', days: 14 });
      expect(answer.matchup_stats).to.deep.equal([]);
      expect(answer.overall).to.deep.equal({ win_rate: null, match_count: 0, wins: 0, losses: 0, draws: 0 });
    });

    it('rejects an unknown archetype with the closest names, listing the valid ones (most decks first over the whole data)', async () => {
      // Whole-data Modern decks: Izzet 8, Boros 7, Amulet 6, Unknown (UR) 2, Living End 1.
      const valid = ['Izzet Murktide', 'Boros Energy', 'Amulet Titan', 'Unknown (UR)', 'Living End'];
      const error = await requestError(deckStats({ format: 'Modern', archetype: 'Jund' }));
      expect(error.code).to.equal('not_found');
      expect(error.message).to.match(/^unknown Modern archetype 'Jund'\. Did you mean '[^']+', '[^']+' or '[^']+'\? /);
      expect(error.message).to.include(`Valid archetypes: ${valid.join(', ')}`);
      expect(error.details).to.deep.equal({ valid });
      const close = await requestError(deckStats({ format: 'Modern', archetype: 'izzet' }));
      expect(close.message).to.include("Did you mean 'Izzet Murktide', ");
      // An archetype of another format is not one of Modern's.
      expect((await requestError(deckStats({ format: 'Modern', archetype: 'Affinity' }))).code).to.equal('not_found');
    });
  });

  describe('adoption, sideboard results and card reads', () => {
    const window = { start: '2026-02-25', end: '2026-03-10', days: 14 };
    const plain = (adoption: ListsAdoption) => ({ lists: adoption.lists, mainboard: Object.fromEntries(adoption.mainboard), sideboard: Object.fromEntries(adoption.sideboard) });

    it('adds up card adoption over the newest lists of an archetype, reading deck lists only for a day not taken whole', async () => {
      // Boros lists in the window: d1, d2 (03-10), d6 (03-03), d10 (02-25).
      expect(plain(await queries.archetypeAdoption('Modern', 'Boros Energy', window, 10))).to.deep.equal({
        lists: 4,
        mainboard: { 'Lightning Bolt': { decks: 4, copies: 16 }, 'Deck 1 card': { decks: 1, copies: 1 }, 'Deck 2 card': { decks: 1, copies: 1 }, 'Deck 6 card': { decks: 1, copies: 1 }, 'Deck 10 card': { decks: 1, copies: 1 } },
        sideboard: {},
      });
      // Three: 03-10 and 03-03 whole. One: 03-10 does not fit whole, so its highest id, d2.
      expect(Object.keys(plain(await queries.archetypeAdoption('Modern', 'Boros Energy', window, 3)).mainboard).sort()).to.deep.equal(['Deck 1 card', 'Deck 2 card', 'Deck 6 card', 'Lightning Bolt']);
      expect(plain(await queries.archetypeAdoption('Modern', 'Boros Energy', window, 1))).to.deep.equal({
        lists: 1,
        mainboard: { 'Lightning Bolt': { decks: 1, copies: 4 }, 'Deck 2 card': { decks: 1, copies: 1 } },
        sideboard: {},
      });
      expect((await queries.archetypeAdoption('Modern', 'Living End', window, 10)).lists).to.equal(0);
    });

    it('adds up card adoption over the newest lists within some colours (any subset of them)', async () => {
      // Inside UR (C, U, R, UR): d3, d5 (03-10), d7 (03-03), d10 (mono-R Boros), d11, d12 (02-25); not WR, G or RG.
      const all = await queries.colorSideboardAdoption('Modern', 'UR', window, 50);
      expect(plain(all)).to.deep.equal({ lists: 6, mainboard: {}, sideboard: { 'Mystical Dispute': { decks: 5, copies: 10 } } });
      // Four: 03-10 and 03-03 whole (three lists), then d12, the highest id of 02-25; and three: d12 alone is not blue.
      expect(plain(await queries.colorSideboardAdoption('Modern', 'UR', window, 4))).to.deep.equal({ lists: 4, mainboard: {}, sideboard: { 'Mystical Dispute': { decks: 4, copies: 8 } } });
      expect(plain(await queries.colorSideboardAdoption('Modern', 'R', window, 50))).to.deep.equal({ lists: 1, mainboard: {}, sideboard: {} });
    });

    it('sums the results per opponent of decks that sided a card, from either side of the match', async () => {
      // Izzet (d3, d7, d11 side Mystical Dispute) in the window: m1 lost to Boros, m3 drew Unknown (UR), m7 beat Boros,
      // m8 beat Amulet, m11 lost to Boros, m12 lost to Unknown (UR).
      const results = await queries.sideboardResults('Modern', 'Izzet Murktide', window);
      expect(Object.fromEntries([...results].map(([opponent, cards]) => [opponent, Object.fromEntries(cards)]))).to.deep.equal({
        'Boros Energy': { 'Mystical Dispute': { matches: 3, wins: 1, losses: 2, draws: 0 } },
        'Unknown (UR)': { 'Mystical Dispute': { matches: 2, wins: 0, losses: 1, draws: 1 } },
        'Amulet Titan': { 'Mystical Dispute': { matches: 1, wins: 1, losses: 0, draws: 0 } },
      });
      expect((await queries.sideboardResults('Modern', 'Boros Energy', window)).size).to.equal(0);
    });

    it('reads card facts by exact name', async () => {
      const cards = await queries.cards(['Lightning Bolt', 'Lightning Bolt', 'No Such Card']);
      expect([...cards.keys()]).to.deep.equal(['Lightning Bolt']);
      expect(cards.get('Lightning Bolt')).to.deep.include({ mana_cost: '{R}', mana_value: 1, type_line: 'Instant', colors: ['R'], color_identity: ['R'], is_land: false });
    });
  });

  describe('the cache of dataset answers', () => {
    const marker = (loadedAt: string) =>
      datasetMarkers(connection).replaceOne({ _id: 'mtg' }, { _id: 'mtg', as_of: '2026-03-10', content_hash: 'test', documents_version: 3, counts: {}, loaded_at: new Date(loadedAt) }, { upsert: true });
    const window = { start: '2026-03-10', end: '2026-03-10', days: 1 };
    const boros = async () => (await new MetaQueries(connection).deckTallies('Modern', [window]))[0].find((t) => t.archetype === 'Boros Energy')?.count;

    after(async () => {
      await datasetMarkers(connection).deleteOne({ _id: 'mtg' });
      await rebuildMetaAggregates(connection);
    });

    it('keeps answers while the dataset marker stays, and drops them when a load writes a new one', async () => {
      // 03-10: d1, d2 are Boros Energy.
      await marker('2026-04-01T00:00:00Z');
      expect(await boros()).to.equal(2);
      await mtgDailyDecks(connection).updateOne({ _id: 'Modern/2026-03-10', 'counts.archetype': 'Boros Energy' }, { $inc: { 'counts.$.decks': 10 } });
      expect(await boros(), 'same marker: the cached answer').to.equal(2);
      await marker('2026-04-02T00:00:00Z');
      expect(await boros(), 'a new load: read again').to.equal(12);
    });

    it('holds a bounded number of answers, dropping the least recently used, and keeps no failure', async () => {
      const cache = new DatasetAnswerCache(2);
      let computed = 0;
      const answer = (key: string) => cache.answer('v1', key, async () => `${key}${++computed}`);
      expect([await answer('a'), await answer('b'), await answer('a')]).to.deep.equal(['a1', 'b2', 'a1']);
      expect(await answer('c')).to.equal('c3'); // b was used least recently: it goes
      expect([await answer('a'), await answer('b')]).to.deep.equal(['a1', 'b4']);
      expect(cache.size).to.equal(2);
      await cache.answer('v1', 'x', () => Promise.reject(new Error('down'))).catch(() => {});
      expect(await cache.answer('v1', 'x', async () => 'x ok')).to.equal('x ok');
      expect(await cache.answer('v2', 'a', async () => 'a under v2')).to.equal('a under v2');
      expect(cache.size).to.equal(1);
    });

    it('caches nothing without a marker (no complete load, or one under way)', async () => {
      await datasetMarkers(connection).deleteOne({ _id: 'mtg' });
      await rebuildMetaAggregates(connection);
      expect(await boros()).to.equal(2);
      await mtgDailyDecks(connection).updateOne({ _id: 'Modern/2026-03-10', 'counts.archetype': 'Boros Energy' }, { $inc: { 'counts.$.decks': 1 } });
      expect(await boros()).to.equal(3);
    });
  });
});
