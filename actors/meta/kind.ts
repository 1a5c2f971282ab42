/**
 * The meta service: a stateless service actor answering the MTG meta and deck tools over the seeded
 * tournament data. Requests run in parallel; the only thing a worker keeps is the card catalogue for
 * deck parsing, reloaded when the data changes.
 */
import type { Connection } from 'mongoose';
import type { ServiceContext, ServiceKind } from '../runtime/contract.js';
import { CardCatalogue } from './card-catalogue.js';
import { http, messages, prompts, resources, tools, type MetaMessages } from './contract.js';
import { enrichedDeck } from './enriched-deck.js';
import { deckMatchups, formatArchetypes, formatMatchups, metaRankings } from './format-meta.js';
import { optimizeMainboard } from './mainboard-optimizer.js';
import { matchupStrategy } from './matchup-strategy.js';
import { MetaQueries } from './meta-queries.js';
import { optimizeSideboard } from './sideboard-optimizer.js';

/** One catalogue per connection (per worker process). */
const catalogues = new WeakMap<Connection, CardCatalogue>();
const catalogueOf = (mongo: Connection) => catalogues.get(mongo) ?? catalogues.set(mongo, new CardCatalogue(mongo)).get(mongo)!;

type Handlers = { [T in keyof MetaMessages]: (payload: MetaMessages[T], ctx: ServiceContext) => Promise<unknown> };

const handlers: Handlers = {
  list_formats: async (_, ctx) => ({ formats: await new MetaQueries(ctx.resources.mongo).formats() }),
  get_format_meta_rankings: (args, ctx) => metaRankings(new MetaQueries(ctx.resources.mongo), args),
  get_format_matchup_stats: (args, ctx) => formatMatchups(new MetaQueries(ctx.resources.mongo), args),
  get_format_archetypes: (args, ctx) => formatArchetypes(new MetaQueries(ctx.resources.mongo), args),
  get_enriched_deck: (args, ctx) => enrichedDeck(catalogueOf(ctx.resources.mongo), args.deck),
  get_deck_matchup_stats: (args, ctx) => deckMatchups(new MetaQueries(ctx.resources.mongo), args),
  generate_deck_matchup_strategy: (args, ctx) => matchupStrategy(coaching(ctx), args),
  optimize_mainboard: (args, ctx) => optimizeMainboard(coaching(ctx), args),
  optimize_sideboard: (args, ctx) => optimizeSideboard(coaching(ctx), args),
};

function coaching(ctx: ServiceContext) {
  return { queries: new MetaQueries(ctx.resources.mongo), catalogue: catalogueOf(ctx.resources.mongo), narrator: ctx.resources.narrator, logger: ctx.logger, signal: ctx.signal };
}

export const metaKind: ServiceKind = {
  kind: 'meta',
  stateful: false,
  description: 'MTG meta research and deck coaching over real tournament data (stateless service).',
  messages,
  tools,
  resources,
  prompts,
  http,
  concurrency: 8,
  limits: { rate: { points: 600, durationSeconds: 60 }, concurrent: 20 },
  handle(message, ctx) {
    const handler = handlers[message.type as keyof MetaMessages] as (payload: unknown, ctx: ServiceContext) => Promise<unknown>;
    return handler(message.payload, ctx);
  },
};
