/**
 * The MTG tournament dataset shipped in models/data/mtg (see its README for the schema and sources):
 * gzip-compressed JSON files, read whole (about 30 MB of JSON once decompressed).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { MODELS_DATA_DIR } from '../package-root.js';

/** Where the dataset lives: models/data/mtg. */
export const MTG_DATA_DIR = join(MODELS_DATA_DIR, 'mtg');

const FILES = ['meta', 'tournaments', 'decklists', 'matches', 'cards'] as const;
type DatasetFile = (typeof FILES)[number];

/** [index into cards.json, number of copies] */
export type RawCardRef = [number, number];

export interface RawTournament {
  id: number;
  key: string;
  source: string;
  name: string;
  format: string;
  date: string;
  start_time?: string | null;
  url?: string | null;
  kind: string;
  player_count?: number | null;
  deck_count?: number | null;
  round_count?: number | null;
  match_count?: number | null;
  has_swiss_rounds: boolean;
}

export interface RawDecklist {
  id: number;
  tournament_id: number;
  format: string;
  date: string;
  player: string;
  result?: string | null;
  rank?: number | null;
  points?: number | null;
  wins?: number | null;
  losses?: number | null;
  draws?: number | null;
  archetype: string;
  archetype_color: string;
  archetype_method: string;
  companion?: string | null;
  mainboard: RawCardRef[];
  sideboard: RawCardRef[];
}

export interface RawMatch {
  id: number;
  tournament_id: number;
  round: string;
  round_number: number;
  deck1_id: number | null;
  deck2_id: number | null;
  player1?: string;
  player2?: string;
  games: string;
  result: 'p1' | 'p2' | 'draw';
}

export interface RawCard {
  index: number;
  name: string;
  full_name?: string;
  mana_cost: string | null;
  mana_value: number | null;
  type_line: string | null;
  first_set?: string | null;
  first_released?: string | null;
  is_land: boolean;
  colors: string[];
  color_identity: string[];
  color_identity_approx?: boolean;
  oracle_text: string | null;
  decks_by_format: Record<string, number>;
}

export interface RawMeta {
  as_of: string;
  counts: { tournaments: number; decklists: number; matches: number; cards: number };
}

export interface MtgDataset {
  meta: RawMeta;
  tournaments: RawTournament[];
  decklists: RawDecklist[];
  matches: RawMatch[];
  cards: RawCard[];
}

/** The dataset's compressed files, as read from disk. */
export interface MtgDatasetFiles {
  dir: string;
  compressed: Record<DatasetFile, Buffer>;
  /** sha256 over every file's name and bytes: identifies this version of the dataset. */
  contentHash: string;
}

export async function readMtgDatasetFiles(dir = MTG_DATA_DIR): Promise<MtgDatasetFiles> {
  const compressed = {} as Record<DatasetFile, Buffer>;
  const hash = createHash('sha256');
  for (const name of FILES) {
    const bytes = await readFile(join(dir, `${name}.json.gz`));
    compressed[name] = bytes;
    hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  }
  return { dir, compressed, contentHash: hash.digest('hex') };
}

export function readMeta(files: MtgDatasetFiles): RawMeta {
  return parse<RawMeta>(files, 'meta');
}

/** Decompresses and parses every file; throws when a file's length disagrees with meta.json's counts. */
export function parseMtgDataset(files: MtgDatasetFiles): MtgDataset {
  const dataset: MtgDataset = {
    meta: readMeta(files),
    tournaments: parse<RawTournament[]>(files, 'tournaments'),
    decklists: parse<RawDecklist[]>(files, 'decklists'),
    matches: parse<RawMatch[]>(files, 'matches'),
    cards: parse<RawCard[]>(files, 'cards'),
  };
  for (const name of ['tournaments', 'decklists', 'matches', 'cards'] as const) {
    const expected = dataset.meta.counts[name];
    if (dataset[name].length !== expected) {
      throw new Error(`${join(files.dir, `${name}.json.gz`)} holds ${dataset[name].length} records; meta.json says ${expected}`);
    }
  }
  return dataset;
}

function parse<T>(files: MtgDatasetFiles, name: DatasetFile): T {
  try {
    return JSON.parse(gunzipSync(files.compressed[name]).toString('utf8')) as T;
  } catch (error) {
    throw new Error(`cannot read ${join(files.dir, `${name}.json.gz`)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
