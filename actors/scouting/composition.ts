/**
 * The offline report (spec FR-06): the template's sections in order, built only from extracted facts,
 * each evidence-backed bullet citing its document as [n] under Sources, what is missing said plainly,
 * at most 2000 words. It is the report when no model is configured and the skeleton a model's prose
 * must keep. Reader feedback is applied where a rule can apply it and always acknowledged. Pure.
 */
import { feetAndInches, isDevelopment, isRisk, isStat, roleIn, styleTagsIn, type PlayerSentence } from './extraction.js';
import { feedbackTerms } from './queries.js';
import { EXPECTED_FIELDS, LIMITS, type Coverage, type EvidenceChunk, type ExpectedField, type Extraction, type FactTopic, type RawFact, type ReportDraft, type ReportSection, type Sport } from './schemas.js';

/** The template's sections, in order; Risk Notes appears only when the evidence has risks. Sources follow them. */
export const sectionTitles = [
  'Snapshot',
  'Strengths',
  'Weaknesses/Limitations',
  'Play Style & Tendencies',
  'Role Projection',
  'Development Focus',
  'Risk Notes',
  "What I Couldn't Find",
] as const;
export type SectionTitle = (typeof sectionTitles)[number];

export interface CompositionInput {
  player_name: string;
  sport: Sport;
  extraction: Extraction;
  chunks: EvidenceChunk[];
  coverage: Coverage;
  /** Content feedback from edit_content (the run searched again with it). */
  feedback?: string;
  /** Wording feedback from edit_wording. */
  wording?: string;
}

/** Words of a text: tokens with a letter or digit, citation marks like [3] not counted. */
export function countWords(text: string): number {
  return text.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token) && !/^(?:\[\d+\])+[.,;:]?$/.test(token)).length;
}

const SPORT_LABEL: Record<Sport, string> = { nba: 'basketball', football: 'American football', unknown: 'sport not determined' };

/** Lower-cases a leading capital unless the word is an initialism or starts with a digit ("3-and-D", "NBA"). */
const lowerFirst = (text: string): string => (/^\p{Lu}\p{Ll}/u.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text);

const POSITION_NAMES: Record<string, string> = {
  PG: 'point guard', SG: 'shooting guard', SF: 'small forward', PF: 'power forward', C: 'center', QB: 'quarterback', RB: 'running back',
  FB: 'fullback', WR: 'wide receiver', TE: 'tight end', OT: 'offensive tackle', OG: 'offensive guard', OL: 'offensive lineman',
  DE: 'defensive end', DT: 'defensive tackle', EDGE: 'edge rusher', LB: 'linebacker', CB: 'cornerback', S: 'safety', K: 'kicker', P: 'punter',
};

const MISSING_PHRASES: Record<ExpectedField, string> = {
  positions: 'the position(s) played',
  teams: 'current or past teams',
  height: 'height',
  weight: 'weight',
  strengths: 'documented strengths',
  weaknesses: 'documented weaknesses or limitations',
};

/** How a reader's feedback changes this draft, and what to tell them about it. */
interface Revision {
  bulletLimit: number;
  focus: string[];
  notes: string[];
}

const SHORTER = /\b(?:shorter|short|concise|brief(?:er)?|trim|tighten|condense|shorten|less (?:detail|text|wordy)|too long|fewer|summar(?:y|ise|ize))\b/i;
const LONGER = /\b(?:longer|more detail(?:s|ed)?|detailed|expand|elaborate|in[- ]depth|more facts|everything|comprehensive|more thorough)\b/i;
const DEFAULT_BULLETS = 6;

const quoteOf = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
};

function revisionFrom(input: CompositionInput, facts: RawFact[]): Revision {
  const requests = [input.feedback, input.wording].filter((text): text is string => Boolean(text?.trim())).map((text) => text.slice(0, LIMITS.feedbackChars));
  const revision: Revision = { bulletLimit: DEFAULT_BULLETS, focus: [], notes: [] };
  if (!requests.length) return revision;
  const text = requests.join(' ');
  const applied: string[] = [];
  if (SHORTER.test(text)) {
    revision.bulletLimit = 3;
    applied.push('kept at most three bullets per section');
  } else if (LONGER.test(text)) {
    revision.bulletLimit = 10;
    applied.push('included up to ten facts per section');
  }
  const terms = feedbackTerms(text, input.player_name).filter((term) => !SHORTER.test(term) && !LONGER.test(term));
  const matched = terms.filter((term) => facts.some((fact) => fact.text.toLowerCase().includes(term)));
  if (matched.length) {
    revision.focus = matched;
    applied.push(`put facts about ${matched.join(', ')} first`);
  }
  const unmatched = terms.filter((term) => !matched.includes(term));
  if (unmatched.length && !matched.length && applied.length === 0) {
    applied.push(`found nothing in the evidence about ${unmatched.slice(0, 3).join(', ')}, so the content is unchanged`);
  }
  if (input.feedback?.trim()) revision.notes.push(`Content feedback "${quoteOf(input.feedback)}": the evidence was searched again with it.`);
  if (input.wording?.trim()) revision.notes.push(`Wording feedback "${quoteOf(input.wording)}".`);
  revision.notes.push(
    applied.length
      ? `This draft ${applied.join('; ')}.`
      : 'No rule of the offline draft applies to this request, so the wording is the template’s; the evidence and sections are unchanged.',
  );
  return revision;
}

/** A fact's topic: the one extraction gave it, else read from its text (a model's facts carry none). */
function topicOf(fact: RawFact): FactTopic | null {
  if (fact.topic) return fact.topic;
  if (fact.field !== 'other') return null;
  const sentence: PlayerSentence = {
    text: fact.text,
    label: null,
    listed: null,
    chunk: { doc_id: fact.doc_id, chunk_id: fact.chunk_id, document_name: '', heading: null, text: fact.text, score: 0, queries: [] },
  };
  if (/^League:/i.test(fact.text)) return 'league';
  if (isRisk(sentence)) return 'risk';
  if (isDevelopment(sentence)) return 'development';
  if (roleIn(sentence)) return 'role';
  if (styleTagsIn(sentence).length) return 'style';
  if (isStat(sentence)) return 'stat';
  return null;
}

/** Numbers documents in the order they are first cited. */
class Citations {
  private readonly numbers = new Map<string, number>();
  private readonly names = new Map<string, string>();

  constructor(chunks: EvidenceChunk[]) {
    for (const chunk of chunks) if (!this.names.has(chunk.doc_id)) this.names.set(chunk.doc_id, chunk.document_name);
  }

  /** " [n]" (or " [n][m]") for the facts' documents. */
  cite(...facts: (RawFact | undefined)[]): string {
    const marks: string[] = [];
    for (const fact of facts) {
      if (!fact) continue;
      let n = this.numbers.get(fact.doc_id);
      if (n === undefined) {
        n = this.numbers.size + 1;
        this.numbers.set(fact.doc_id, n);
      }
      if (!marks.includes(`[${n}]`)) marks.push(`[${n}]`);
    }
    return marks.length ? ` ${marks.join('')}` : '';
  }

  docIds(): string[] {
    return [...this.numbers.keys()];
  }

  listing(): string {
    if (!this.numbers.size) return 'No documents were cited: nothing in the uploaded documents was found about this player.';
    return [...this.numbers].map(([doc, n]) => `[${n}] ${this.names.get(doc) || doc}`).join('\n');
  }
}

/** At most `words` words of a text, with an ellipsis when cut. */
function clipWords(text: string, words: number): string {
  const parts = text.trim().split(/\s+/);
  return parts.length <= words ? text.trim() : `${parts.slice(0, words).join(' ')}…`;
}

const bulletText = (fact: RawFact): string => clipWords(fact.text.replace(/\s+/g, ' ').replace(/[.;,]+$/, ''), 40);

/** Facts about the focus terms first, then the rest, each text once. */
function ordered(facts: RawFact[], focus: string[]): RawFact[] {
  const seen = new Set<string>();
  const unique = facts.filter((fact) => {
    const key = fact.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const focused = (fact: RawFact): boolean => focus.some((term) => fact.text.toLowerCase().includes(term));
  return [...unique.filter(focused), ...unique.filter((fact) => !focused(fact))];
}

const bullets = (lines: string[]): string => lines.map((line) => `- ${line}`).join('\n');

const listPhrase = (items: string[]): string => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

interface Draft {
  sections: ReportSection[];
  summary: string[];
}

function draftSections(input: CompositionInput, facts: RawFact[], revision: Revision, citations: Citations): Draft {
  const name = input.player_name;
  const fields = input.extraction.player_fields;
  const limit = revision.bulletLimit;
  const byField = (field: RawFact['field']): RawFact[] => ordered(facts.filter((fact) => fact.field === field), revision.focus);
  const byTopic = (topic: FactTopic): RawFact[] => ordered(facts.filter((fact) => topicOf(fact) === topic), revision.focus);
  const first = (field: RawFact['field']): RawFact | undefined => facts.find((fact) => fact.field === field);
  const documents = new Set(input.chunks.map((chunk) => chunk.doc_id)).size;

  // Snapshot: who, size, teams, the headline trait and concern, then how much evidence there was.
  const snapshot: string[] = [];
  const positions = (fields.positions ?? []).map((code) => POSITION_NAMES[code] ?? code);
  const leagueFact = byTopic('league')[0];
  snapshot.push(
    `${name}${positions.length ? `: ${listPhrase(positions)}` : ''} (${SPORT_LABEL[input.sport]}${fields.league ? `, ${fields.league}` : ''})${citations.cite(first('positions'), fields.league ? leagueFact : undefined)}`,
  );
  const physical: string[] = [];
  if (fields.physical?.height_cm !== undefined) physical.push(`${feetAndInches(fields.physical.height_cm)} (${fields.physical.height_cm} cm)`);
  if (fields.physical?.weight_kg !== undefined) physical.push(`${Math.round(fields.physical.weight_kg / 0.45359237)} lb (${fields.physical.weight_kg} kg)`);
  if (physical.length) snapshot.push(`Listed at ${physical.join(', ')}${citations.cite(first('height'), first('weight'))}`);
  if (fields.teams?.length) snapshot.push(`Teams: ${fields.teams.slice(0, 4).join(', ')}${citations.cite(first('teams'))}`);
  const topStrength = fields.scouting?.strengths?.[0];
  const topWeakness = fields.scouting?.weaknesses?.[0];
  if (topStrength || topWeakness) {
    const parts = [topStrength ? `best trait: ${lowerFirst(topStrength)}` : '', topWeakness ? `main concern: ${lowerFirst(topWeakness)}` : ''].filter(Boolean);
    const line = parts.join('; ');
    snapshot.push(`${line.charAt(0).toUpperCase()}${line.slice(1)}${citations.cite(topStrength ? first('strengths') : undefined, topWeakness ? first('weaknesses') : undefined)}`);
  }
  if (snapshot.length < 3 && facts.length === 0) snapshot.push(`No evidence about ${name} was found in the uploaded documents.`);
  else if (snapshot.length < 3 && fields.scouting?.role_projection) snapshot.push(`Role: ${clipWords(fields.scouting.role_projection, 25)}${citations.cite(byTopic('role')[0])}`);
  snapshot.push(
    `Evidence: ${input.coverage.found.length} of ${EXPECTED_FIELDS.length} expected fields found in ${input.coverage.chunk_count} chunk${input.coverage.chunk_count === 1 ? '' : 's'} from ${documents} document${documents === 1 ? '' : 's'} (confidence: ${input.coverage.confidence})`,
  );
  while (snapshot.length < 3) snapshot.push(`Little is documented about ${name}; see What I Couldn't Find.`);
  const snapshotLines = snapshot.slice(0, 5);

  const factBullets = (list: RawFact[], none: string): string =>
    list.length ? bullets(list.slice(0, limit).map((fact) => `${bulletText(fact)}${citations.cite(fact)}`)) : none;

  // Play style: tags as one sentence, then the numbers that show it.
  const styleFacts = byTopic('style');
  const statFacts = byTopic('stat');
  const style: string[] = [];
  const tags = fields.scouting?.style_tags ?? [];
  if (tags.length) style.push(`${name} is described as: ${listPhrase(tags.slice(0, limit).map(lowerFirst))}${citations.cite(...styleFacts.slice(0, 3))}.`);
  for (const fact of statFacts.slice(0, Math.max(1, Math.ceil(limit / 2)))) style.push(`${bulletText(fact)}${citations.cite(fact)}.`);
  const styleBody = style.length ? style.join(' ') : `The documents do not describe ${name}'s play style or tendencies.`;

  const roleFacts = byTopic('role');
  const roleText = fields.scouting?.role_projection;
  const roleLines = roleFacts.slice(0, limit >= 10 ? 3 : 1).map((fact) => `${bulletText(fact)}${citations.cite(fact)}.`);
  const roleBody = roleLines.length ? roleLines.join(' ') : roleText ? `${clipWords(roleText, 60)}.` : `No role projection for ${name} was found in the evidence.`;

  const developmentFacts = byTopic('development');
  const weaknessItems = fields.scouting?.weaknesses ?? [];
  const developmentBody = developmentFacts.length
    ? factBullets(developmentFacts, '')
    : weaknessItems.length
      ? `No development plan is documented; the priorities follow from the limitations above: ${listPhrase(weaknessItems.slice(0, 3).map(lowerFirst))}.`
      : 'No improvement areas were identified in the evidence.';

  const missing: string[] = input.coverage.missing.map((field) => `No evidence of ${MISSING_PHRASES[field]}.`);
  if (input.sport === 'unknown') missing.push(`The sport ${name} plays could not be determined.`);
  if (input.chunks.length === 0) missing.unshift(`No uploaded document mentions ${name}.`);
  else if (facts.length === 0) missing.unshift(`None of the ${input.chunks.length} retrieved passages says anything about ${name} that could be used.`);
  const missingBody = [
    missing.length ? bullets(missing) : 'Every expected field (positions, teams, height, weight, strengths, weaknesses) has evidence.',
    input.coverage.confidence === 'low'
      ? `Confidence is low (${input.coverage.found.length} of ${EXPECTED_FIELDS.length} expected fields). Consider uploading more documents about ${name}, such as scouting reports, player bios or stat sheets, and running the report again.`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');

  const riskFacts = byTopic('risk');
  const sections: ReportSection[] = [
    { title: 'Snapshot', body: [revision.notes.length ? `_${revision.notes.join(' ')}_` : '', bullets(snapshotLines)].filter(Boolean).join('\n\n') },
    { title: 'Strengths', body: factBullets(byField('strengths'), `No strengths of ${name} are documented in the evidence.`) },
    { title: 'Weaknesses/Limitations', body: factBullets(byField('weaknesses'), `No weaknesses or limitations of ${name} are documented in the evidence.`) },
    { title: 'Play Style & Tendencies', body: styleBody },
    { title: 'Role Projection', body: roleBody },
    { title: 'Development Focus', body: developmentBody },
    ...(riskFacts.length ? [{ title: 'Risk Notes', body: factBullets(riskFacts, '') }] : []),
    { title: "What I Couldn't Find", body: missingBody },
  ];

  const uncited = (line: string): string => line.replace(/\s*(?:\[\d+\])+/g, '').trim();
  const summary = snapshotLines.slice(0, 4).map(uncited);
  const strengths = fields.scouting?.strengths ?? [];
  if (strengths.length) summary.push(`Strengths: ${listPhrase(strengths.slice(0, 3).map(lowerFirst))}`);
  if (weaknessItems.length) summary.push(`Limitations: ${listPhrase(weaknessItems.slice(0, 3).map(lowerFirst))}`);
  if (roleText) summary.push(`Role projection: ${clipWords(roleText, 25)}`);
  if (riskFacts.length) summary.push(`Risk: ${clipWords(uncited(bulletText(riskFacts[0]!)), 25)}`);
  if (input.coverage.missing.length) summary.push(`Not found: ${listPhrase(input.coverage.missing.map((field) => MISSING_PHRASES[field]))}`);
  summary.push(uncited(snapshotLines[snapshotLines.length - 1]!));
  if (input.coverage.confidence === 'low') summary.push(`Low confidence: upload more documents about ${name} and run again`);
  const uniqueSummary = [...new Set(summary.map((line) => clipWords(line, 40)))];
  while (uniqueSummary.length < 5) uniqueSummary.push(uniqueSummary.length === 3 ? `Sport: ${SPORT_LABEL[input.sport]}` : `See the full report for what was found about ${name}`);
  return { sections, summary: uniqueSummary.slice(0, 8) };
}

function render(name: string, sections: ReportSection[], sources: string): string {
  return [`# Scouting report: ${name}`, ...sections.map((section) => `## ${section.title}\n\n${section.body}`), `## Sources\n\n${sources}`].join('\n\n');
}

/** The report from the facts alone: template order, citations, missing information, at most LIMITS.maxReportWords words. */
export function composeOffline(input: CompositionInput): ReportDraft {
  const facts = input.extraction.raw_facts;
  const revision = revisionFrom(input, facts);
  for (let limit = revision.bulletLimit; ; limit -= 1) {
    const citations = new Citations(input.chunks);
    const draft = draftSections(input, facts, { ...revision, bulletLimit: limit }, citations);
    let sections = draft.sections;
    let report_text = render(input.player_name, sections, citations.listing());
    if (countWords(report_text) > LIMITS.maxReportWords && limit > 1) continue;
    // Past one bullet per section only shortening each section is left.
    for (let words = 200; countWords(report_text) > LIMITS.maxReportWords && words >= 20; words = Math.floor(words / 2)) {
      sections = sections.map((section) => ({ ...section, body: clipWords(section.body, words) }));
      report_text = render(input.player_name, sections, citations.listing());
    }
    return { sections, report_text, report_summary: draft.summary, word_count: countWords(report_text), source_doc_ids: citations.docIds() };
  }
}
