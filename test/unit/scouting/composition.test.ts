/** Offline report composition (spec FR-06, FR-08): template sections, citations, word cap, what is missing, feedback. */
import { expect } from 'chai';
import { composeOffline, countWords, sectionTitles, type CompositionInput } from '../../../actors/scouting/composition.js';
import { coverageOf } from '../../../actors/scouting/evidence.js';
import { extractOffline } from '../../../actors/scouting/extraction.js';
import { LIMITS, type EvidenceChunk, type ReportDraft, type Sport } from '../../../actors/scouting/schemas.js';

const NAME = 'Jordan Pike';

function chunk(doc: string, i: number, text: string): EvidenceChunk {
  return { doc_id: doc, chunk_id: `${doc}#${i}`, document_name: `${doc}.md`, heading: null, text, score: 1, queries: [] };
}

const RICH = [
  chunk('profile', 0, 'Jordan Pike plays point guard for the Harbor City Comets in the NBA. Pike is listed at 6-2 and 190 lbs.'),
  chunk('profile', 1, 'Pike excels at pushing the pace in transition. His best skill is his pick-and-roll passing.'),
  chunk('profile', 2, 'Pike struggles with turnovers under pressure. Pike has limited range beyond the arc.'),
  chunk('notes', 0, 'Pike is a floor general. He shot 38.5% from three and averaged 7.1 assists. Pike projects as a starting point guard on a playoff team.'),
  chunk('notes', 1, 'Pike needs to improve his left hand. Pike sprained his ankle in March and missed 6 games.'),
];

function inputFor(chunks: EvidenceChunk[], over: Partial<CompositionInput> = {}, sport: Sport = 'nba'): CompositionInput {
  return { player_name: NAME, sport, extraction: extractOffline(chunks, { player_name: NAME, sport }), chunks, coverage: coverageOf(chunks, NAME, sport), ...over };
}

/** The body of one section of the rendered report. */
function section(draft: ReportDraft, title: string): string {
  return draft.sections.find((s) => s.title === title)?.body ?? '';
}

const bulletsOf = (body: string): string[] => body.split('\n').filter((line) => line.startsWith('- '));

describe('scouting report composition, offline (spec FR-06)', function () {
  describe('test_report_sections_present', function () {
    it('renders the template’s sections in order, then Sources', function () {
      const draft = composeOffline(inputFor(RICH));
      expect(draft.sections.map((s) => s.title)).to.deep.equal([...sectionTitles]);
      const headings = [...draft.report_text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      expect(headings).to.deep.equal([...sectionTitles, 'Sources']);
      expect(draft.report_text.startsWith(`# Scouting report: ${NAME}`)).to.equal(true);
      for (const s of draft.sections) expect(s.body.trim(), s.title).not.to.equal('');
    });

    it('gives a 3–5 bullet snapshot and a 5–8 bullet summary', function () {
      for (const chunks of [RICH, RICH.slice(0, 1), []]) {
        const draft = composeOffline(inputFor(chunks));
        expect(bulletsOf(section(draft, 'Snapshot')).length).to.be.within(3, 5);
        expect(draft.report_summary.length).to.be.within(5, 8);
        for (const line of draft.report_summary) expect(line).not.to.match(/\[\d+\]/);
      }
    });

    it('adds Risk Notes only when the evidence has injury or durability notes', function () {
      expect(section(composeOffline(inputFor(RICH)), 'Risk Notes')).to.match(/sprained his ankle in March and missed 6 games \[2\]/);
      const noRisk = composeOffline(inputFor(RICH.slice(0, 3)));
      expect(noRisk.sections.map((s) => s.title)).not.to.include('Risk Notes');
      expect(noRisk.sections.map((s) => s.title)).to.deep.equal(sectionTitles.filter((t) => t !== 'Risk Notes'));
    });

    it('fills every section from the evidence', function () {
      const draft = composeOffline(inputFor(RICH));
      expect(section(draft, 'Snapshot')).to.include('point guard (basketball, NBA)').and.include(`6'2" (188 cm), 190 lb (86 kg)`).and.include('Harbor City Comets');
      expect(section(draft, 'Strengths')).to.include('Pike excels at pushing the pace in transition');
      expect(section(draft, 'Weaknesses/Limitations')).to.include('Pike struggles with turnovers under pressure');
      expect(section(draft, 'Play Style & Tendencies')).to.include('floor general').and.include('38.5%');
      expect(section(draft, 'Role Projection')).to.include('Pike projects as a starting point guard on a playoff team');
      expect(section(draft, 'Development Focus')).to.include('needs to improve his left hand');
    });
  });

  it('cites a numbered source for every evidence-backed bullet, and every citation resolves', function () {
    const draft = composeOffline(inputFor(RICH));
    const [body, sources] = draft.report_text.split('\n## Sources\n\n');
    const listed = new Map(sources!.trim().split('\n').map((line) => [/^\[(\d+)\]/.exec(line)![1]!, line.replace(/^\[\d+\]\s*/, '')]));
    expect([...listed.values()]).to.deep.equal(['profile.md', 'notes.md']);
    expect(draft.source_doc_ids).to.deep.equal(['profile', 'notes']);
    const cited = new Set([...body!.matchAll(/\[(\d+)\]/g)].map((m) => m[1]!));
    expect([...cited].sort()).to.deep.equal([...listed.keys()].sort());
    for (const title of ['Strengths', 'Weaknesses/Limitations', 'Risk Notes']) {
      for (const bullet of bulletsOf(section(draft, title))) expect(bullet, title).to.match(/\[\d+\]$/);
    }
  });

  it('stays within 2000 words however many facts there are', function () {
    const many = Array.from({ length: 200 }, (_, i) =>
      chunk(`doc${i % 30}`, i, `Jordan Pike excels at skill number ${i} ${'with a long explanation of how and why '.repeat(4)}. Pike struggles with habit ${i} ${'in many situations over many games '.repeat(4)}. Pike missed ${i + 1} games with a sprained ankle ${'during a long season of travel '.repeat(3)}.`),
    );
    const draft = composeOffline(inputFor(many, { feedback: 'more detail please' }));
    expect(draft.word_count).to.be.at.most(LIMITS.maxReportWords);
    expect(draft.word_count).to.equal(countWords(draft.report_text));
    expect(draft.sections.map((s) => s.title)).to.include.members(['Strengths', "What I Couldn't Find"]);
  });

  it('lists what it could not find, phrased for people, and advises uploads when confidence is low', function () {
    const thin = [chunk('camp', 0, 'Jordan Pike is a linebacker.')];
    const draft = composeOffline(inputFor(thin, {}, 'football'));
    const missing = section(draft, "What I Couldn't Find");
    expect(draft.sections.map((s) => s.title)).to.include("What I Couldn't Find");
    for (const phrase of ['current or past teams', 'height', 'weight', 'documented strengths', 'documented weaknesses or limitations']) expect(missing).to.include(`No evidence of ${phrase}.`);
    expect(missing).not.to.include('position');
    expect(missing).to.match(/Confidence is low \(1 of 6 expected fields\)\. Consider uploading more documents about Jordan Pike/);
    expect(draft.report_summary.join(' ')).to.match(/Low confidence/);
    expect(section(composeOffline(inputFor(RICH)), "What I Couldn't Find")).not.to.match(/Confidence is low/);
  });

  it('tolerates no evidence at all: a short report that says so', function () {
    const draft = composeOffline(inputFor([], {}, 'unknown'));
    expect(draft.sections.map((s) => s.title)).to.deep.equal(sectionTitles.filter((t) => t !== 'Risk Notes'));
    expect(section(draft, "What I Couldn't Find")).to.include(`No uploaded document mentions ${NAME}.`).and.include('could not be determined');
    expect(draft.source_doc_ids).to.deep.equal([]);
    expect(draft.report_text).not.to.match(/\[\d+\]/);
    expect(draft.word_count).to.be.below(400);
  });

  describe('feedback (spec FR-08 edit_wording / edit_content)', function () {
    const many = [
      ...RICH,
      chunk('extra', 0, 'Jordan Pike\nStrengths: rebounding, screening, passing, defense, hustle, leadership, toughness'),
      chunk('extra', 1, 'Jordan Pike\nWeaknesses: size, strength, finishing, free throws, foul trouble'),
    ];

    it('shortens on request, and says so', function () {
      const plain = composeOffline(inputFor(many));
      const shorter = composeOffline(inputFor(many, { wording: 'Make it shorter' }));
      expect(bulletsOf(section(shorter, 'Strengths'))).to.have.length(3);
      expect(bulletsOf(section(plain, 'Strengths')).length).to.be.greaterThan(3);
      const allBullets = (draft: ReportDraft): number => draft.sections.reduce((sum, s) => sum + bulletsOf(s.body).length, 0);
      expect(allBullets(shorter)).to.be.below(allBullets(plain));
      expect(section(shorter, 'Snapshot')).to.match(/Wording feedback "Make it shorter"\. This draft kept at most three bullets per section\./);
    });

    it('includes more facts on a request for more detail', function () {
      const detailed = composeOffline(inputFor(many, { wording: 'more detail' }));
      expect(bulletsOf(section(detailed, 'Strengths')).length).to.be.greaterThan(bulletsOf(section(composeOffline(inputFor(many)), 'Strengths')).length);
    });

    it('puts facts about the feedback’s subject first', function () {
      const focused = composeOffline(inputFor(many, { feedback: 'focus on turnovers' }));
      expect(bulletsOf(section(focused, 'Weaknesses/Limitations'))[0]).to.include('turnovers');
      expect(section(focused, 'Snapshot')).to.include('Content feedback "focus on turnovers": the evidence was searched again with it.').and.include('put facts about turnovers first');
    });

    it('never ignores a request silently', function () {
      const draft = composeOffline(inputFor(RICH, { wording: 'Use a friendlier tone' }));
      expect(section(draft, 'Snapshot')).to.include('Wording feedback "Use a friendlier tone".').and.match(/No rule of the offline draft applies|found nothing in the evidence/);
      const unknown = composeOffline(inputFor(RICH, { feedback: 'what about his contract extension?' }));
      expect(section(unknown, 'Snapshot')).to.include('found nothing in the evidence about contract, extension');
    });
  });

  it('counts words without citation marks or Markdown symbols', function () {
    expect(countWords('## Strengths\n\n- Elite court vision [1][2]\n- Floater [3].')).to.equal(5);
    expect(countWords('')).to.equal(0);
  });
});
