/**
 * A small MTG dataset of real records, for tests of what a load does (reloads, repairs, additions,
 * --verify) rather than of the shipped files, which take seconds to load where this takes a fraction of
 * one: the tournaments of the shipped dataset's first and last days with their deck lists and matches
 * (about 3 % of the records), and every card, since deck lists name cards by their index in cards.json.
 * Written in the shipped files' format, so seedMtg reads it with `dataDir`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { MTG_DATA_DIR, parseMtgDataset, readMtgDatasetFiles, type MtgDataset } from '../../models/mtg/dataset-files.js';

/** The days whose tournaments the sample holds: the dataset's first and last (its `as_of`). */
export const SAMPLE_DAYS: readonly string[] = ['2026-05-17', '2026-08-08'];

export interface MtgSampleDataset {
  dir: string;
  /** The sample as seedMtg parses it from `dir`. */
  dataset: MtgDataset;
  counts: { cards: number; tournaments: number; decklists: number; matches: number };
  /** Removes the directory. */
  remove(): Promise<void>;
}

export async function writeMtgSampleDataset(): Promise<MtgSampleDataset> {
  const full = parseMtgDataset(await readMtgDatasetFiles(MTG_DATA_DIR));
  const tournaments = full.tournaments.filter((t) => SAMPLE_DAYS.includes(t.date));
  const ids = new Set(tournaments.map((t) => t.id));
  const decklists = full.decklists.filter((d) => ids.has(d.tournament_id));
  const matches = full.matches.filter((m) => ids.has(m.tournament_id));
  const counts = { cards: full.cards.length, tournaments: tournaments.length, decklists: decklists.length, matches: matches.length };
  const meta = { ...full.meta, counts: { ...full.meta.counts, ...counts } };

  const dir = await mkdtemp(join(tmpdir(), 'troupe-mtg-sample-'));
  const files = { meta, tournaments, decklists, matches, cards: full.cards };
  for (const [name, records] of Object.entries(files)) await writeFile(join(dir, `${name}.json.gz`), gzipSync(JSON.stringify(records)));
  const dataset = parseMtgDataset(await readMtgDatasetFiles(dir));
  return { dir, dataset, counts, remove: () => rm(dir, { recursive: true, force: true }) };
}
