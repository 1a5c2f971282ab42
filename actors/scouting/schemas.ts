/**
 * The scouting run's data, as the spec names it: the player fields a report may fill, the evidence
 * retrieved for it, what it covers, and the drafted report. Pure shapes (zod) shared by the graph's
 * nodes, the actor's state and the save.
 */
import { z } from 'zod';

/** The spec's sport guesses: `nba` is basketball. */
export const Sport = z.enum(['nba', 'football', 'unknown']);
export type Sport = z.infer<typeof Sport>;

/** Input limits of the spec (section 7.2). */
export const LIMITS = {
  playerName: 200,
  hints: 10,
  hintChars: 100,
  steps: 10,
  stepChars: 500,
  feedbackChars: 1000,
  /** NFR-04 */
  maxQueries: 6,
  minQueries: 3,
  maxChunks: 40,
  maxReportWords: 2000,
  minPlanSteps: 4,
  maxPlanSteps: 7,
  /** Edit loops at gate B before the run refuses more edits. */
  maxEditLoops: 3,
} as const;

/** Only what the evidence supports: every field but the name and the sport is optional. */
export const PlayerFields = z.object({
  display_name: z.string().min(1).max(LIMITS.playerName),
  sport: Sport,
  positions: z.array(z.string().min(1).max(40)).max(6).optional(),
  teams: z.array(z.string().min(1).max(80)).max(12).optional(),
  league: z.string().min(1).max(40).optional(),
  physical: z
    .object({
      height_cm: z.number().min(120).max(250).optional(),
      weight_kg: z.number().min(40).max(200).optional(),
    })
    .optional(),
  scouting: z
    .object({
      strengths: z.array(z.string().min(1).max(200)).max(10).optional(),
      weaknesses: z.array(z.string().min(1).max(200)).max(10).optional(),
      style_tags: z.array(z.string().min(1).max(80)).max(10).optional(),
      role_projection: z.string().min(1).max(500).optional(),
    })
    .optional(),
});
export type PlayerFields = z.infer<typeof PlayerFields>;

/** The fields whose evidence decides the confidence (spec FR-04). */
export const EXPECTED_FIELDS = ['positions', 'teams', 'height', 'weight', 'strengths', 'weaknesses'] as const;
export type ExpectedField = (typeof EXPECTED_FIELDS)[number];

/** One retrieved chunk, as retrieval hands it to the run. */
export interface EvidenceChunk {
  doc_id: string;
  /** Unique within the document: `${doc_id}#${index}`. */
  chunk_id: string;
  document_name: string;
  heading: string | null;
  text: string;
  /** Best fused score over the queries that found it. */
  score: number;
  /** The queries that found it. */
  queries: string[];
}

/** What one query found, best first. */
export interface QueryHits {
  query: string;
  hits: EvidenceChunk[];
}

export type Confidence = 'low' | 'med' | 'high';

export interface Coverage {
  found: ExpectedField[];
  missing: ExpectedField[];
  confidence: Confidence;
  chunk_count: number;
}

/** What a fact outside the expected fields is about, so the report can place it. */
export type FactTopic = 'league' | 'style' | 'role' | 'risk' | 'development' | 'stat';

/** An atomic fact from the evidence, traceable to the chunk it came from. */
export interface RawFact {
  text: string;
  field: ExpectedField | 'other';
  /** Set on `other` facts by the offline extraction. */
  topic?: FactTopic;
  doc_id: string;
  chunk_id: string;
}

export interface Extraction {
  raw_facts: RawFact[];
  player_fields: PlayerFields;
}

export interface ReportSection {
  title: string;
  body: string;
}

export interface ReportDraft {
  sections: ReportSection[];
  /** Markdown, sections in the template's order, with citations like [1] listed under Sources. */
  report_text: string;
  /** 5–8 bullets. */
  report_summary: string[];
  word_count: number;
  /** The documents cited, in citation order. */
  source_doc_ids: string[];
}
