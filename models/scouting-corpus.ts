/**
 * The scouting demo corpus shipped in models/data/scouting: invented players' documents that `troupe
 * seed scouting`, the tests and the benchmark upload. `index.json` says which files belong to it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { MODELS_DATA_DIR } from './package-root.js';

const CORPUS_DIR = join(MODELS_DATA_DIR, 'scouting');

const CorpusIndex = z.object({
  documents: z.array(z.object({ name: z.string().min(1), content_type: z.string().min(1), sports: z.array(z.string()), players: z.array(z.string()) })).min(1),
});

export interface CorpusDocument {
  name: string;
  contentType: string;
  sports: string[];
  players: string[];
  bytes: Buffer;
}

export function scoutingCorpus(): CorpusDocument[] {
  const index = CorpusIndex.parse(JSON.parse(readFileSync(join(CORPUS_DIR, 'index.json'), 'utf8')));
  return index.documents.map((d) => ({ name: d.name, contentType: d.content_type, sports: d.sports, players: d.players, bytes: readFileSync(join(CORPUS_DIR, d.name)) }));
}
