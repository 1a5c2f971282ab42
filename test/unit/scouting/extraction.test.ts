/** Offline extraction (spec FR-05): only what the evidence says, each fact traceable to its chunk; checked on the shipped corpus too. */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractText, getDocumentProxy } from 'unpdf';
import { chunkText } from '../../../actors/documents/chunking.js';
import { parseDocument } from '../../../actors/documents/parse.js';
import { coverageOf } from '../../../actors/scouting/evidence.js';
import { extractOffline, playerSentences } from '../../../actors/scouting/extraction.js';
import { sportFromEvidence } from '../../../actors/scouting/intake.js';
import { PlayerFields, type EvidenceChunk, type Extraction, type Sport } from '../../../actors/scouting/schemas.js';

const CORPUS = fileURLToPath(new URL('../../../models/data/scouting/', import.meta.url));

interface CorpusIndex {
  documents: { name: string; content_type: string; sports: Sport[]; players: string[] }[];
}
const index = JSON.parse(readFileSync(`${CORPUS}index.json`, 'utf8')) as CorpusIndex;

function chunk(doc: string, i: number, text: string, heading: string | null = null): EvidenceChunk {
  return { doc_id: doc, chunk_id: `${doc}#${i}`, document_name: `${doc}.md`, heading, text, score: 1, queries: [] };
}

/** One chunk per line of text, all in one document. */
function chunks(...texts: string[]): EvidenceChunk[] {
  return texts.map((text, i) => chunk('doc', i, text));
}

const extract = (player_name: string, sport: Sport, ...texts: string[]): Extraction => extractOffline(chunks(...texts), { player_name, sport });

/** The corpus split the simple way: blocks between blank lines, a heading line (Markdown `#` or all capitals) naming the blocks below it. */
async function corpusChunks(): Promise<EvidenceChunk[]> {
  const out: EvidenceChunk[] = [];
  for (const document of index.documents) {
    const bytes = readFileSync(`${CORPUS}${document.name}`);
    const text = document.name.endsWith('.pdf') ? (await extractText(await getDocumentProxy(new Uint8Array(bytes)))).text.join('\n\n') : bytes.toString('utf8');
    let heading: string | null = null;
    text.split(/\n\s*\n/).forEach((block, i) => {
      const trimmed = block.trim();
      if (!trimmed) return;
      if (!trimmed.includes('\n') && (/^#{1,6}\s/.test(trimmed) || (/^[^a-z]+$/.test(trimmed) && /[A-Z]{3}/.test(trimmed)))) {
        heading = trimmed.replace(/^#+\s*/, '');
        return;
      }
      out.push({ doc_id: document.name, chunk_id: `${document.name}#${i}`, document_name: document.name, heading, text: trimmed, score: 1, queries: [] });
    });
  }
  return out;
}

/** Facts quoted from the evidence (as opposed to "Height: …" summaries) must appear in their chunk. */
const flat = (text: string): string => text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').replace(/[.\s]+$/, '').trim().toLowerCase();

function expectTraceable(extraction: Extraction, input: EvidenceChunk[]): void {
  const byId = new Map(input.map((c) => [c.chunk_id, c]));
  for (const fact of extraction.raw_facts) {
    const source = byId.get(fact.chunk_id);
    expect(source, `chunk of "${fact.text}"`).to.not.equal(undefined);
    expect(source!.doc_id).to.equal(fact.doc_id);
    const quoted = fact.field === 'strengths' || fact.field === 'weaknesses' || ['risk', 'role', 'development', 'stat'].includes(fact.topic ?? '');
    if (quoted) expect(flat(source!.text), fact.text).to.include(flat(fact.text));
  }
}

describe('scouting extraction, offline (spec FR-05)', function () {
  describe('test_extraction_omits_unknown', function () {
    it('leaves out every field the evidence does not support, and empty objects', function () {
      const result = extract('Jordan Pike', 'nba', 'Jordan Pike plays point guard.', 'The weather was fine and the arena was loud.');
      expect(result.player_fields).to.deep.equal({ display_name: 'Jordan Pike', sport: 'nba', positions: ['PG'] });
      expect(result.player_fields).not.to.have.any.keys('physical', 'scouting', 'teams', 'league');
    });

    it('returns only the name and sport when nothing is about the player', function () {
      const result = extract('Jordan Pike', 'football', 'Theo Vance stands 6-11, weighs 245 pounds and plays center for the Harbor City Comets.', 'Vance excels at rim protection.');
      expect(result).to.deep.equal({ raw_facts: [], player_fields: { display_name: 'Jordan Pike', sport: 'football' } });
      expect(extractOffline([], { player_name: 'Jordan Pike', sport: 'unknown' }).player_fields).to.deep.equal({ display_name: 'Jordan Pike', sport: 'unknown' });
    });

    it('keeps a physical object with only the measurement found', function () {
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike weighs 190 lbs.').player_fields.physical).to.deep.equal({ weight_kg: 86 });
    });

    it('ties every fact to the chunk it came from', function () {
      const input = chunks('Jordan Pike is a 6-2 point guard who signed with the Harbor City Comets.', 'Pike excels at pushing the pace.', 'Pike struggles with turnovers.', 'Pike sprained his ankle and missed 4 games.');
      const result = extractOffline(input, { player_name: 'Jordan Pike', sport: 'nba' });
      expectTraceable(result, input);
      const facts = Object.fromEntries(result.raw_facts.map((fact) => [fact.field === 'other' ? fact.topic! : fact.field, fact.chunk_id]));
      expect(facts).to.include({ height: 'doc#0', positions: 'doc#0', teams: 'doc#0', strengths: 'doc#1', weaknesses: 'doc#2', risk: 'doc#3' });
    });

    it('does not take a rival’s position or another player’s sentences', function () {
      expect(extract('Jordan Pike', 'football', 'Jordan Pike struggles against a physical cornerback.').player_fields.positions).to.equal(undefined);
      const mixed = [chunk('review', 0, 'Jordan Pike is a wide receiver. Theo Vance is a tight end who stands 6-6.\n\nVance excels at blocking. He weighs 250 lbs.')];
      const pike = extractOffline(mixed, { player_name: 'Jordan Pike', sport: 'football' }).player_fields;
      expect(pike).to.deep.equal({ display_name: 'Jordan Pike', sport: 'football', positions: ['WR'] });
    });
  });

  describe('field patterns', function () {
    const heightOf = (text: string): number | undefined => extract('Jordan Pike', 'nba', `Jordan Pike: ${text}`).player_fields.physical?.height_cm;
    const weightOf = (text: string): number | undefined => extract('Jordan Pike', 'nba', `Jordan Pike: ${text}`).player_fields.physical?.weight_kg;

    it('reads heights as 6\'8", 6-8 with a cue, 6 ft 8 in, 6-foot-8, cm and m', function () {
      expect(heightOf('he is 6\'8" tall')).to.equal(203);
      expect(heightOf('he is 6’8” tall')).to.equal(203);
      expect(heightOf('listed at 6-8')).to.equal(203);
      expect(heightOf('a 6-8 small forward')).to.equal(203);
      expect(heightOf('stands 6 ft 8 in')).to.equal(203);
      expect(heightOf('a 6-foot-8 wing')).to.equal(203);
      expect(heightOf('Height: 203 cm')).to.equal(203);
      expect(heightOf('measures 2.03 m')).to.equal(203);
    });

    it('ignores scores, records and wingspans that look like heights', function () {
      expect(heightOf('the team went 6-8 in road games')).to.equal(undefined);
      expect(heightOf('he has a 7\'1" wingspan')).to.equal(undefined);
      expect(heightOf('stands 6\'5" with a 7\'0" wingspan')).to.equal(196);
    });

    it('reads weights in lbs, pounds and kg, but not lifting numbers', function () {
      expect(weightOf('218 lbs')).to.equal(99);
      expect(weightOf('weighs 225 pounds')).to.equal(102);
      expect(weightOf('102 kg')).to.equal(102);
      expect(weightOf('benched 225 pounds at the combine')).to.equal(undefined);
      expect(weightOf('about 12 lbs lighter')).to.equal(undefined);
    });

    it('normalises positions to short codes for the sport', function () {
      expect(extract('Jordan Pike', 'nba', 'Position: Small forward / power forward').player_fields.positions).to.equal(undefined);
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike\nPosition: Small forward / power forward').player_fields.positions).to.deep.equal(['SF', 'PF']);
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike (PG/SG) plays point guard.').player_fields.positions).to.deep.equal(['PG', 'SG']);
      expect(extract('Jordan Pike', 'football', 'Jordan Pike is a quarterback.').player_fields.positions).to.deep.equal(['QB']);
      expect(extract('Jordan Pike', 'football', 'Jordan Pike\nPositions: QB').player_fields.positions).to.deep.equal(['QB']);
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike is a quarterback.').player_fields.positions).to.equal(undefined);
      expect(extract('Jordan Pike', 'unknown', 'Jordan Pike plays center.').player_fields.positions).to.deep.equal(['C']);
    });

    it('reads teams after "plays for", "signed with", "drafted … by", "traded to" and from a Team label, never a league', function () {
      const fields = extract(
        'Jordan Pike',
        'nba',
        'Jordan Pike plays for the Harbor City Comets.',
        'Pike was drafted 14th overall by the Lakeshore Pilots in 2021.',
        'Pike signed with Silver Lake in March.',
        'Pike was traded to the Granite Bay Ironclads.',
        'Pike joined the NBA in 2021.',
        'Jordan Pike\nTeam: Mesa Ridge Coyotes (NBA)',
      ).player_fields;
      expect(fields.teams).to.deep.equal(['Harbor City Comets', 'Lakeshore Pilots', 'Silver Lake', 'Granite Bay Ironclads', 'Mesa Ridge Coyotes']);
      expect(fields.league).to.equal('NBA');
    });

    it('takes the league from a label first, else the most mentioned', function () {
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike played in the NCAA, then the NBA, and the NBA again.').player_fields.league).to.equal('NBA');
      expect(extract('Jordan Pike', 'nba', 'Jordan Pike: NBA NBA NBA', 'Jordan Pike\nLeague: G League').player_fields.league).to.equal('G League');
      expect(extract('Jordan Pike', 'football', 'Jordan Pike left the NBA for the NFL.').player_fields.league).to.equal('NFL');
    });

    it('reads strengths and weaknesses from lists and cue sentences, not from negations', function () {
      const fields = extract(
        'Jordan Pike',
        'nba',
        'Jordan Pike excels at pushing the pace in transition.',
        'Pike has elite court vision.',
        "Pike's best skill is his floater.",
        'Pike is not an elite athlete.',
        'Pike struggles with turnovers under pressure.',
        "Pike's jump shot remains inconsistent.",
        'Pike has limited range, and he needs to improve his left hand.',
        'Jordan Pike\nStrengths: rebounding, screening and passing',
        'Jordan Pike\n\nWeaknesses:\n- Free throws: 61% for his career\n- Foul trouble',
      ).player_fields.scouting!;
      expect(fields.strengths).to.deep.equal(['Pushing the pace in transition', 'Elite court vision', 'Floater', 'Rebounding', 'Screening', 'Passing']);
      expect(fields.weaknesses).to.deep.equal([
        'Struggles with turnovers under pressure',
        'Jump shot remains inconsistent',
        'Left hand',
        'Limited range',
        'Free throws',
        'Foul trouble',
      ]);
    });

    it('reads style tags and a role projection', function () {
      const fields = extract(
        'Jordan Pike',
        'nba',
        'Jordan Pike is a pick-and-roll ball handler and a lob threat.',
        'Pike projects as a starting point guard on a playoff team.',
        'Jordan Pike\nStyle: floor general, tempo pusher',
      ).player_fields.scouting!;
      expect(fields.style_tags).to.deep.equal(['Pick-and-roll ball handler', 'Lob threat', 'Floor general', 'Tempo pusher']);
      expect(fields.role_projection).to.equal('Projects as a starting point guard on a playoff team');
    });

    it('passes the PlayerFields schema', function () {
      const result = extract('Jordan Pike', 'nba', 'Jordan Pike is a 6-2 point guard who weighs 190 lbs and signed with the Harbor City Comets.');
      expect(PlayerFields.parse(result.player_fields)).to.deep.equal(result.player_fields);
    });
  });

  describe('on the shipped corpus', function () {
    let corpus: EvidenceChunk[] = [];
    before(async function () {
      corpus = await corpusChunks();
    });

    it('indexes every document in the folder, with 300–900 words each', function () {
      const files = ['caleb-drummond-durability-notes.txt', 'caleb-drummond-qb-evaluation.md', 'harbor-city-comets-frontcourt-review.md', 'marcus-ellery-scouting-report.md', 'marcus-ellery-season-notes.txt', 'rafael-de-la-torre-receiver-profile.pdf', 'theo-vance-profile.txt', 'tobias-mckinnon-camp-note.txt'];
      expect(index.documents.map((d) => d.name).sort()).to.deep.equal(files);
      for (const name of files) {
        const words = corpus.filter((c) => c.doc_id === name).reduce((sum, c) => sum + c.text.split(/\s+/).length, 0);
        expect(words, name).to.be.within(250, 900);
      }
    });

    it('extracts Marcus Ellery’s expected fields from three documents', function () {
      const result = extractOffline(corpus, { player_name: 'Marcus Ellery', sport: 'nba' });
      const fields = result.player_fields;
      expect(fields).to.deep.include({ display_name: 'Marcus Ellery', sport: 'nba', positions: ['SF', 'PF'], league: 'NBA', physical: { height_cm: 203, weight_kg: 99 } });
      expect(fields.teams).to.include.members(['Harbor City Comets', 'Lakeshore Pilots']);
      expect(fields.scouting!.strengths).to.include.members(['Catch-and-shoot three', 'Switchable defense']);
      expect(fields.scouting!.weaknesses).to.include.members(['Ball handling under pressure', 'Finishing through contact']);
      expect(fields.scouting!.style_tags).to.include('3-and-D');
      expect(fields.scouting!.role_projection).to.match(/^Projects as/);
      expect(new Set(result.raw_facts.map((f) => f.doc_id))).to.have.keys(['marcus-ellery-scouting-report.md', 'marcus-ellery-season-notes.txt', 'harbor-city-comets-frontcourt-review.md']);
      expect(result.raw_facts.some((f) => f.topic === 'risk' && /ankle/.test(f.text))).to.equal(true);
      expectTraceable(result, corpus);
    });

    it('keeps Theo Vance’s facts out of Ellery’s extraction in the two-player review, and the other way round', function () {
      const ellery = extractOffline(corpus, { player_name: 'Marcus Ellery', sport: 'nba' });
      const vance = extractOffline(corpus, { player_name: 'Theo Vance', sport: 'nba' });
      expect(ellery.raw_facts.filter((f) => /6'11"|211 cm|245|Vance|rim protection/i.test(f.text))).to.deep.equal([]);
      expect(vance.raw_facts.filter((f) => /Ellery|spot-up|6'8"|218/i.test(f.text))).to.deep.equal([]);
      expect(vance.player_fields).to.deep.include({ positions: ['C'], physical: { height_cm: 211, weight_kg: 111 } });
      expect(vance.player_fields.teams).to.deep.equal(['Harbor City Comets', 'Silver Lake Sentinels']);
    });

    it('reads the PDF player and the football players', function () {
      const torre = extractOffline(corpus, { player_name: 'Rafael de la Torre', sport: 'football' }).player_fields;
      expect(torre).to.deep.include({ positions: ['WR'], league: 'NFL', physical: { height_cm: 178, weight_kg: 84 } });
      expect(torre.teams).to.include('Bayou Cross Herons');
      const drummond = extractOffline(corpus, { player_name: 'Caleb Drummond', sport: 'football' }).player_fields;
      expect(drummond).to.deep.include({ positions: ['QB'], teams: ['Granite Bay Ironclads'], league: 'NFL', physical: { height_cm: 191, weight_kg: 100 } });
    });

    it('gives the thinly covered player low confidence, and the others high', function () {
      const expected: Record<string, string> = { 'Marcus Ellery': 'high', 'Theo Vance': 'high', 'Caleb Drummond': 'high', 'Rafael de la Torre': 'high', 'Tobias McKinnon': 'low' };
      for (const document of index.documents) {
        for (const player of document.players) {
          expect(coverageOf(corpus, player, document.sports[0]).confidence, player).to.equal(expected[player]);
        }
      }
      expect(extractOffline(corpus, { player_name: 'Tobias McKinnon', sport: 'football' }).player_fields).to.deep.equal({ display_name: 'Tobias McKinnon', sport: 'football', positions: ['LB'] });
    });

    it('lets the evidence tell the sport of each player', function () {
      for (const document of index.documents) {
        for (const player of document.players) {
          const texts = playerSentences(corpus, player).map((s) => s.text);
          expect(sportFromEvidence(texts), player).to.equal(document.sports[0]);
        }
      }
    });

    it('reads the same fields when the documents go through the real upload path (parse, chunk)', async function () {
      const real: EvidenceChunk[] = [];
      for (const document of index.documents) {
        const parsed = await parseDocument({ name: document.name, contentType: document.content_type, bytes: new Uint8Array(readFileSync(`${CORPUS}${document.name}`)) });
        if (document.name.endsWith('.pdf')) expect(parsed.pages, 'the PDF has several pages').to.be.greaterThan(1);
        for (const piece of chunkText(parsed.text, parsed.format)) {
          real.push({ doc_id: document.name, chunk_id: `${document.name}#${piece.index}`, document_name: document.name, heading: piece.heading, text: piece.text, score: 1, queries: [] });
        }
      }
      for (const [player, sport] of [['Marcus Ellery', 'nba'], ['Theo Vance', 'nba'], ['Caleb Drummond', 'football'], ['Rafael de la Torre', 'football']] as const) {
        const simple = extractOffline(corpus, { player_name: player, sport }).player_fields;
        const uploaded = extractOffline(real, { player_name: player, sport }).player_fields;
        expect({ positions: uploaded.positions, physical: uploaded.physical, league: uploaded.league }, player).to.deep.equal({ positions: simple.positions, physical: simple.physical, league: simple.league });
        expect(coverageOf(real, player, sport).confidence, player).to.equal('high');
      }
      expect(coverageOf(real, 'Tobias McKinnon', 'football').confidence).to.equal('low');
    });
  });
});
