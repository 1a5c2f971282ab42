/**
 * The eight MTG meta and deck tools end to end: a running troupe (`troupe mongo` + `troupe start`) with
 * the real dataset loaded, called through the official MCP SDK client over streamable HTTP, plus the
 * `GET /formats` and `GET /archetypes` reads. Without LLM_PROVIDER the offline narrator writes the prose.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { pollUntil } from '../support/async.js';
import { createUserKey, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const MODERN_DECK = `Deck
4 Ragavan, Nimble Pilferer (MH2) 138
4 Guide of Souls
4 Ocelot Pride
3 Phlage, Titan of Fire's Fury
4 Galvanic Discharge
4 Lightning Bolt
2 Static Prison
1 Goblin Bombardment
2 Ajani, Nacatl Pariah
4 Seasoned Pyromancer
2 Tribal Flames
4 Arid Mesa
4 Flooded Strand
3 Sacred Foundry
2 Inspiring Vantage
2 Arena of Glory
3 Mountain
2 Plains
4 Lightnig Bolt

Sideboard
2 Wear // Tear
2 Blood Moon
3 Surgical Extraction
2 Celestial Purge
3 Wrath of the Skies
`;

type Structured = Record<string, unknown>;

describe('MTG meta tools over MCP on a running troupe', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  let base = '';
  let key = '';
  let mcp: Client;

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Record<string, unknown>): Promise<Structured> => {
    const result = await call(name, args);
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).to.deep.equal(result.structuredContent);
    return result.structuredContent as Structured;
  };
  const failure = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = await call(name, args);
    expect(result.isError).to.equal(true);
    return (result.content[0] as { text: string }).text;
  };
  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });

  const redisPrefix = `test-meta-${process.pid}-${Date.now().toString(36)}`;

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    const env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await startSeededMongo(mongoPort, env, processes);
    key = await createUserKey('coach', env);
    processes.push(spawnTroupe(['start'], env));
    base = `http://127.0.0.1:${port}`;
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });
    mcp = new Client({ name: 'meta-tools-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });

  after(async function () {
    await mcp?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('lists the eight tools with input and output schemas', async function () {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['get_format_meta_rankings', 'get_format_matchup_stats', 'get_format_archetypes', 'get_enriched_deck', 'get_deck_matchup_stats', 'generate_deck_matchup_strategy', 'optimize_mainboard', 'optimize_sideboard']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, `${name} in ${names.join(', ')}`).to.not.equal(undefined);
      expect(tool!.description).to.have.length.greaterThan(40);
      expect(tool!.outputSchema).to.be.an('object');
    }
  });

  it('GET /formats and GET /archetypes answer from the data', async function () {
    expect(await (await get('/formats')).json()).to.deep.equal({ formats: ['Legacy', 'Modern', 'Pauper', 'Pioneer', 'Standard', 'Vintage'] });
    const archetypes = (await (await get('/archetypes?format=modern')).json()) as { format: string; archetypes: Array<{ id: string; name: string; meta_share: number; color_identity: string }> };
    expect(archetypes.format).to.equal('Modern');
    expect(archetypes.archetypes[0]).to.include({ id: 'boros-energy', name: 'Boros Energy', color_identity: 'WR' });
    const shares = archetypes.archetypes.map((a) => a.meta_share);
    expect(shares).to.deep.equal([...shares].sort((a, b) => b - a));
    const missing = await get('/archetypes');
    expect(missing.status).to.equal(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).to.match(/format is required/);
    const unknown = await get('/archetypes?format=Commander');
    expect(unknown.status).to.equal(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).to.match(/valid formats: Legacy, Modern, Pauper, Pioneer, Standard, Vintage/);
    expect((await fetch(`${base}/formats`)).status).to.equal(401);
  });

  it('get_format_meta_rankings: current and previous windows from the newest tournament, filters and grouping', async function () {
    const rankings = await ok('get_format_meta_rankings', { format: 'Modern', current_days: 30, previous_days: 30 });
    const metadata = rankings.metadata as Structured;
    expect(metadata.current_period).to.deep.include({ start: '2026-07-10', end: '2026-08-08', days: 30 });
    expect(metadata.previous_period).to.deep.include({ start: '2026-06-10', end: '2026-07-09', days: 30 });
    const rows = rankings.data as Array<Structured>;
    expect(rows[0]).to.include({ archetype: 'Boros Energy', color_identity: 'WR' });
    const shares = rows.map((r) => r.sample_size_current as number);
    expect(shares).to.deep.equal([...shares].sort((a, b) => b - a));
    const total = rows.reduce((n, r) => n + (r.meta_share_current as number), 0);
    expect(total).to.be.closeTo(100, 0.5);
    for (const row of rows) if ((row.match_count_current as number) < 3) expect(row.win_rate_current).to.equal(null);

    const red = await ok('get_format_meta_rankings', { format: 'Pauper', color_identity: 'r' });
    expect((red.data as Structured[]).every((r) => r.color_identity === 'R')).to.equal(true);
    const grouped = await ok('get_format_meta_rankings', { format: 'Pauper', group_by: 'color_identity' });
    const groups = grouped.data as Structured[];
    expect(new Set(groups.map((g) => g.color_identity)).size).to.equal(groups.length);
    expect(groups[0].archetypes).to.be.an('array').that.is.not.empty;

    expect(await failure('get_format_meta_rankings', { format: 'Commander' })).to.match(/unknown format 'Commander'; valid formats: Legacy, Modern/);
    expect(await failure('get_format_meta_rankings', { format: 'Modern', color_identity: 'purple' })).to.match(/not a colour combination/);
  });

  it('get_format_matchup_stats and get_deck_matchup_stats agree with each other', async function () {
    const matrix = await ok('get_format_matchup_stats', { format: 'Modern', days: 30 });
    expect(matrix.metadata).to.deep.include({ format: 'Modern', days: 30 });
    const table = matrix.matrix as Record<string, Record<string, { win_rate: number | null; match_count: number }>>;
    expect(matrix.archetypes).to.include('Boros Energy');
    const row = await ok('get_deck_matchup_stats', { archetype: 'boros energy', format: 'Modern', days: 30 });
    expect(row.archetype).to.equal('Boros Energy');
    const stats = row.matchup_stats as Array<{ opponent_archetype: string; win_rate: number | null; match_count: number }>;
    expect(stats.length).to.be.greaterThan(5);
    for (const s of stats) expect(table['Boros Energy'][s.opponent_archetype]).to.deep.equal({ win_rate: s.win_rate, match_count: s.match_count });
    const counts = stats.map((s) => s.match_count);
    expect(counts).to.deep.equal([...counts].sort((a, b) => b - a));
    // A matchup seen from both sides adds up.
    const [opponent] = stats.filter((s) => s.opponent_archetype !== 'Boros Energy');
    expect(table[opponent.opponent_archetype]['Boros Energy'].match_count).to.equal(opponent.match_count);

    expect(await failure('get_deck_matchup_stats', { archetype: 'Boros Energie', format: 'Modern' })).to.match(/unknown Modern archetype 'Boros Energie'\. Did you mean 'Boros Energy'.*All \d+ are in details\.valid/);
  });

  it('get_format_archetypes lists archetypes by share', async function () {
    const answer = await ok('get_format_archetypes', { format: 'Legacy', days: 14 });
    expect(answer.format).to.equal('Legacy');
    const list = answer.archetypes as Array<{ meta_share: number }>;
    expect(list.length).to.be.greaterThan(5);
    expect(list.map((a) => a.meta_share)).to.deep.equal(list.map((a) => a.meta_share).sort((a, b) => b - a));
  });

  it('get_enriched_deck parses a pasted Arena list, merges duplicates and suggests names for typos', async function () {
    const deck = await ok('get_enriched_deck', { deck: MODERN_DECK });
    const cards = deck.card_details as Array<Structured>;
    expect(deck.sideboard_count).to.equal(12);
    expect(cards.find((c) => c.name === 'Ragavan, Nimble Pilferer')).to.deep.include({ quantity: 4, section: 'mainboard', mana_cost: '{R}', mana_value: 1, colors: ['R'] });
    expect(cards.find((c) => c.name === 'Wear // Tear')).to.deep.include({ section: 'sideboard', quantity: 2 });
    const unmatched = deck.unmatched as Array<{ name: string; suggestions: string[] }>;
    expect(unmatched.map((u) => u.name)).to.deep.equal(['Lightnig Bolt']);
    expect(unmatched[0].suggestions).to.include('Lightning Bolt');
    expect(await failure('get_enriched_deck', { deck: '   \n\n' })).to.match(/the deck is empty/);
  });

  it('the coaching tools compute from the data, keep to the deck\'s colours and explain offline', async function () {
    const deck = await ok('get_enriched_deck', { deck: MODERN_DECK });
    const card_details = deck.card_details;
    const strategy = await ok('generate_deck_matchup_strategy', { card_details, archetype: 'Boros Energy', opponent_archetype: 'Goryo Reanimator' });
    expect(strategy).to.deep.include({ format: 'Modern', archetype: 'Boros Energy', opponent_archetype: 'Goryo Reanimator' });
    expect((strategy.matchup_stats as Structured).source).to.equal('data');
    expect(((strategy.opponent_profile as Structured).key_cards as unknown[]).length).to.be.greaterThan(3);
    expect(strategy.advice).to.match(/Boros Energy vs Goryo Reanimator/).and.match(/LLM_PROVIDER/);
    expect(strategy.narrator).to.deep.equal({ provider: 'offline', model: null, offline: true });

    const main = await ok('optimize_mainboard', { card_details, archetype: 'Boros Energy', format: 'Modern', top_n: 5 });
    expect(main.deck_colors).to.equal('WR');
    expect(main.top_archetypes).to.have.length(5);
    for (const r of main.recommendations as Array<{ add: string; color_identity: string[]; replaces: string }>) {
      expect(r.color_identity.every((c) => 'WR'.includes(c)), r.add).to.equal(true);
      expect((main.flex_spots as Array<{ name: string }>).map((f) => f.name)).to.include(r.replaces);
    }

    const side = await ok('optimize_sideboard', { card_details, archetype: 'Boros Energy', format: 'Modern', top_n: 5 });
    const final = side.final_sideboard as Array<{ name: string; quantity: number }>;
    expect(final.reduce((n, c) => n + c.quantity, 0)).to.equal(15);
    expect(side.sideboard_plans).to.have.length(5);
    expect(side.explanation).to.include('Final sideboard (15)');

    expect(await failure('optimize_sideboard', { card_details, archetype: 'Boros Energy', format: 'Modern', top_n: 0 })).to.match(/top_n/);
    expect(await failure('optimize_mainboard', { card_details: [], archetype: 'Boros Energy', format: 'Modern' })).to.match(/card_details/);
  });
});
