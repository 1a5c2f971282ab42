/**
 * The answers of the eight meta tools on one database, computed in-process through the service kind's
 * real handlers (payloads parsed by the contract's schemas, as the runtime does), for a snapshot test:
 * issue 17 changes how the tools read MongoDB, and every answer must stay the same on the shipped data.
 *
 * For every format `list_formats` returns and every window of WINDOWS:
 *   get_format_meta_rankings (current_days = previous_days = days; by archetype, and by colour identity),
 *   get_format_matchup_stats, get_format_archetypes, get_deck_matchup_stats,
 *   generate_deck_matchup_strategy, optimize_mainboard, optimize_sideboard;
 * and get_enriched_deck once per format (it takes no window).
 *
 * Deck inputs come from the raw decklists, independent of the tools: per format, the most played
 * archetype over all the data (most decklists; "Unknown (..)" colour buckets left out; ties by name),
 * its newest decklist (newest date, then lowest _id) as MTGO-style text, and as the opponent the second
 * most played archetype by the same rule. Coaching tools use the offline narrator (deterministic).
 *
 * Keys: `${tool} ${format} ${days}`, `${tool} ${format}` for get_enriched_deck, `inputs ${format}` for
 * the chosen inputs, `list_formats`, and two refused requests (an unknown format, an unknown archetype). A RequestError is an answer too: { error: code, message }.
 * The one value that depends on the clock, get_format_meta_rankings' metadata.timestamp (the time of
 * the call), is checked to be an ISO date and replaced by "<timestamp>".
 */
import { join } from 'node:path';
import mongoose from 'mongoose';
import { pino } from 'pino';
import { offlineNarrator } from '../../actors/llm/offline-narrator.js';
import { messages, type CardDetail } from '../../actors/meta/contract.js';
import { metaKind } from '../../actors/meta/kind.js';
import { RequestError, type ActorResources, type ServiceContext } from '../../actors/runtime/contract.js';
import { PACKAGE_ROOT } from '../../models/package-root.js';
import { seededMongo } from './seeded-dbpath.js';

/** Where the snapshot lives. */
export const META_ANSWERS_FIXTURE = join(PACKAGE_ROOT, 'test', 'fixtures', 'meta-answers.json.gz');

export const WINDOWS = [7, 14, 30, 60] as const;
/** Windows the coaching tools (strategy, optimizers) are asked for. */
export const COACHING_WINDOWS: readonly number[] = WINDOWS;

type Tool = keyof typeof messages;

interface DeckInputs {
  archetype: string;
  opponent_archetype: string | null;
  decklist_id: number;
  deck: string;
}

interface RawDecklist {
  _id: number;
  date: Date;
  archetype_name: string;
  mainboard: Array<{ card: string; count: number }>;
  sideboard: Array<{ card: string; count: number }>;
}

/** The deck inputs of one format, read from the raw decklists collection. */
async function deckInputs(connection: mongoose.Connection, format: string): Promise<DeckInputs | null> {
  const decklists = connection.db!.collection<RawDecklist>('mtg_decklists');
  const counts = await decklists.aggregate<{ _id: string; n: number }>([{ $match: { format } }, { $group: { _id: '$archetype_name', n: { $sum: 1 } } }]).toArray();
  const ranked = counts
    .filter((c) => !c._id.startsWith('Unknown'))
    .sort((a, b) => b.n - a.n || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
    .map((c) => c._id);
  if (ranked.length === 0) return null;
  const archetype = ranked[0];
  const newest = await decklists.find({ format, archetype_name: archetype }).sort({ date: -1, _id: 1 }).limit(1).next();
  if (!newest) return null;
  const lines = (cards: RawDecklist['mainboard']) => cards.map((c) => `${c.count} ${c.card}`);
  const deck = [...lines(newest.mainboard), '', 'Sideboard', ...lines(newest.sideboard), ''].join('\n');
  return { archetype, opponent_archetype: ranked[1] ?? null, decklist_id: newest._id, deck };
}

function context(connection: mongoose.Connection): ServiceContext {
  const resources: ActorResources = {
    mongo: connection,
    narrator: offlineNarrator(),
    chatModel: null,
    mcp: { url: () => undefined } as unknown as ActorResources['mcp'],
    embedder: null,
    gateTimeoutMs: null,
  };
  return { emit: () => undefined, resources, signal: new AbortController().signal, logger: pino({ level: 'silent' }) };
}

const TIMESTAMP = '<timestamp>';

/** Pins the answer's clock-dependent value (see the header). */
function pin(tool: Tool, answer: unknown): unknown {
  if (tool !== 'get_format_meta_rankings') return answer;
  const metadata = (answer as { metadata?: { timestamp?: unknown } }).metadata;
  if (metadata && typeof metadata.timestamp === 'string') {
    if (Number.isNaN(Date.parse(metadata.timestamp))) throw new Error(`get_format_meta_rankings: timestamp is not a date: ${metadata.timestamp}`);
    metadata.timestamp = TIMESTAMP;
  }
  return answer;
}

/** Every meta tool's answer on `connection`'s data, keyed as in the header. */
export async function metaAnswers(connection: mongoose.Connection, options: { coachingWindows?: readonly number[] } = {}): Promise<Record<string, unknown>> {
  const coachingWindows = options.coachingWindows ?? COACHING_WINDOWS;
  const ctx = context(connection);
  let messageNo = 0;
  const call = async (tool: Tool, args: Record<string, unknown>): Promise<unknown> => {
    const payload = messages[tool].parse(args);
    try {
      const answer = await metaKind.handle({ messageId: `meta-answers-${++messageNo}`, type: tool, payload, ownerId: 'meta-answers', createdAt: 0 }, ctx);
      return pin(tool, answer);
    } catch (error) {
      if (error instanceof RequestError) return { error: error.code, message: error.message };
      throw error;
    }
  };

  const answers: Record<string, unknown> = {};
  const listed = (await call('list_formats', {})) as { formats?: string[] };
  answers.list_formats = listed;
  const formats = listed.formats ?? [];

  for (const format of formats) {
    const inputs = await deckInputs(connection, format);
    answers[`inputs ${format}`] = inputs;
    let cardDetails: CardDetail[] | null = null;
    if (inputs) {
      const enriched = await call('get_enriched_deck', { deck: inputs.deck });
      answers[`get_enriched_deck ${format}`] = enriched;
      const details = (enriched as { card_details?: CardDetail[] }).card_details;
      if (details && details.length > 0) cardDetails = details;
    }
    for (const days of WINDOWS) {
      const key = (tool: string) => `${tool} ${format} ${days}`;
      answers[key('get_format_meta_rankings')] = await call('get_format_meta_rankings', { format, current_days: days, previous_days: days });
      answers[key('get_format_meta_rankings/color_identity')] = await call('get_format_meta_rankings', { format, current_days: days, previous_days: days, group_by: 'color_identity' });
      answers[key('get_format_matchup_stats')] = await call('get_format_matchup_stats', { format, days });
      answers[key('get_format_archetypes')] = await call('get_format_archetypes', { format, days });
      if (!inputs) continue;
      answers[key('get_deck_matchup_stats')] = await call('get_deck_matchup_stats', { archetype: inputs.archetype, format, days });
      if (!cardDetails || !coachingWindows.includes(days)) continue;
      if (inputs.opponent_archetype) {
        answers[key('generate_deck_matchup_strategy')] = await call('generate_deck_matchup_strategy', {
          card_details: cardDetails,
          archetype: inputs.archetype,
          opponent_archetype: inputs.opponent_archetype,
          format,
          days,
        });
      }
      answers[key('optimize_mainboard')] = await call('optimize_mainboard', { card_details: cardDetails, archetype: inputs.archetype, format, days });
      answers[key('optimize_sideboard')] = await call('optimize_sideboard', { card_details: cardDetails, archetype: inputs.archetype, format, days });
    }
  }
  // Two requests the tools refuse: the refusal (code and message) is part of the contract too.
  answers['get_format_archetypes No Such Format 30'] = await call('get_format_archetypes', { format: 'No Such Format', days: 30 });
  if (formats.length > 0) answers[`get_deck_matchup_stats ${formats[0]} 30 No Such Archetype`] = await call('get_deck_matchup_stats', { archetype: 'No Such Archetype', format: formats[0], days: 30 });
  return answers;
}

/** JSON with object keys sorted at every level (arrays keep their order); numbers as JSON.stringify writes them. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
  );
}

export interface AnswerDifference {
  path: string;
  expected: unknown;
  actual: unknown;
}

/** The first `limit` paths where two JSON values differ, depth first in sorted key order. */
export function answerDifferences(expected: unknown, actual: unknown, limit = 10): AnswerDifference[] {
  const out: AnswerDifference[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (out.length >= limit) return;
    if (Object.is(a, b)) return;
    const bothArrays = Array.isArray(a) && Array.isArray(b);
    const bothObjects = !!a && !!b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
    if (bothArrays) {
      if (a.length !== b.length) out.push({ path: `${path}.length`, expected: a.length, actual: b.length });
      for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (bothObjects) {
      const ra = a as Record<string, unknown>;
      const rb = b as Record<string, unknown>;
      for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
        const sub = path === '' ? k : `${path}.${k}`;
        if (!(k in ra)) out.push({ path: sub, expected: '<absent>', actual: rb[k] });
        else if (!(k in rb)) out.push({ path: sub, expected: ra[k], actual: '<absent>' });
        else walk(ra[k], rb[k], sub);
        if (out.length >= limit) return;
      }
      return;
    }
    out.push({ path, expected: a, actual: b });
  };
  walk(expected, actual, '');
  return out;
}

/** Runs `fn` on a connection to a MongoDB holding the MTG dataset (seededMongo), then cleans up. */
export async function onSeededCopy<T>(fn: (connection: mongoose.Connection) => Promise<T>): Promise<T> {
  const seeded = await seededMongo();
  try {
    const connection = await mongoose.createConnection(seeded.uri, { dbName: seeded.dbName }).asPromise();
    try {
      return await fn(connection);
    } finally {
      await connection.close();
    }
  } finally {
    await seeded.stop();
  }
}
