/**
 * Every card of the loaded dataset, in memory, for matching typed deck lists: ~6,500 cards, read once
 * per worker process and again only when `troupe seed mtg` has loaded different data (the dataset
 * marker changed), so parsing a deck costs no database round trips per card.
 */
import type { Connection } from 'mongoose';
import { mtgCards, type MtgCard } from '../../models/mtg/card.js';
import { mtgDatasetMarker } from '../../models/mtg/seed.js';
import { RequestError } from '../runtime/contract.js';
import { CardMatcher } from './card-matcher.js';

export type CatalogueEntry = Pick<MtgCard, 'name' | 'full_name' | 'lookup_keys' | 'mana_cost' | 'mana_value' | 'type_line' | 'colors' | 'color_identity' | 'oracle_text' | 'is_land'>;

export class CardCatalogue {
  private loaded?: { version: string; matcher: CardMatcher<CatalogueEntry> };
  private loading?: Promise<CardMatcher<CatalogueEntry>>;

  constructor(private readonly connection: Connection) {}

  async matcher(): Promise<CardMatcher<CatalogueEntry>> {
    const marker = await mtgDatasetMarker(this.connection);
    if (!marker) throw new RequestError('unavailable', 'no card data is loaded; run `troupe seed mtg`');
    const version = `${marker.content_hash}:${new Date(marker.loaded_at).getTime()}`;
    if (this.loaded?.version === version) return this.loaded.matcher;
    this.loading ??= this.load(version).finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(version: string): Promise<CardMatcher<CatalogueEntry>> {
    const cards = await mtgCards(this.connection)
      .find({}, { _id: 0, name: 1, full_name: 1, lookup_keys: 1, mana_cost: 1, mana_value: 1, type_line: 1, colors: 1, color_identity: 1, oracle_text: 1, is_land: 1 })
      .lean<CatalogueEntry[]>();
    const matcher = new CardMatcher(cards);
    this.loaded = { version, matcher };
    return matcher;
  }
}
