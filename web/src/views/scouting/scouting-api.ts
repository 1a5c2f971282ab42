/**
 * The scouting view's side of troupe's API: the shapes of documents, runs, players and reports as the
 * HTTP routes answer them (actors/documents and actors/scouting contracts), and the calls that read them.
 */
import { api } from '../../api.js';

export type Sport = 'nba' | 'football' | 'unknown';
export const SPORT_LABELS: Record<Sport, string> = { nba: 'basketball (NBA)', football: 'American football', unknown: 'unknown sport' };
export const sportLabel = (sport: string | null | undefined) => (sport ? (SPORT_LABELS[sport as Sport] ?? sport) : '—');

export type ExpectedField = 'positions' | 'teams' | 'height' | 'weight' | 'strengths' | 'weaknesses';
export type Confidence = 'low' | 'med' | 'high';

export interface Coverage {
  found: ExpectedField[];
  missing: ExpectedField[];
  confidence: Confidence;
  chunk_count: number;
}

export interface PlayerFields {
  display_name: string;
  sport: Sport;
  positions?: string[];
  teams?: string[];
  league?: string;
  physical?: { height_cm?: number; weight_kg?: number };
  scouting?: { strengths?: string[]; weaknesses?: string[]; style_tags?: string[]; role_projection?: string };
}

export type GateProposal =
  | { gate: 'clarification'; message: string; request: string; since: string }
  | { gate: 'plan_approval'; player_name: string; sport_guess: Sport; plan_steps: string[]; query_hints: string[]; since: string }
  | {
      gate: 'player_approval';
      player_fields: PlayerFields;
      report_summary: string[];
      report_text: string;
      db_payload_preview: Record<string, unknown>;
      edit_loops: number;
      edits_left: number;
      since: string;
    };

export type RunStatus = 'new' | 'awaiting_clarification' | 'awaiting_plan_approval' | 'awaiting_player_approval' | 'completed' | 'expired';
export const STATUS_LABELS: Record<RunStatus, string> = {
  new: 'starting',
  awaiting_clarification: 'waiting for the player name',
  awaiting_plan_approval: 'waiting for your plan approval',
  awaiting_player_approval: 'waiting for your approval of the player',
  completed: 'completed',
  expired: 'expired at its gate',
};

export interface RunResult {
  scouting_report: string | null;
  player_record_id: string | null;
  report_id: string | null;
  saved: boolean;
  coverage: Coverage | null;
  player_fields: PlayerFields | null;
  report_summary: string[];
  outcome: 'saved' | 'rejected' | 'save_failed' | 'plan_declined';
  message: string;
}

/** GET /scouting/runs/:id, and the `run` event of a run's stream. */
export interface RunView {
  run_id: string;
  status: RunStatus;
  request: string | null;
  player_name: string | null;
  sport: Sport | null;
  plan_steps: string[];
  query_hints: string[];
  pending_gate: GateProposal | null;
  coverage: Coverage | null;
  warnings: string[];
  edit_loops: number;
  result: RunResult | null;
  work_ms: number;
  created_at: string | null;
  updated_at: string | null;
}

/** A line of GET /scouting/runs. */
export interface RunSummary {
  run_id: string;
  status: RunStatus;
  player_name: string | null;
  sport: Sport | null;
  waiting_for: GateProposal['gate'] | null;
  saved: boolean;
  created_at: string | null;
  updated_at: string | null;
}

/** The gate answers of POST /scouting/runs/:id/resume. */
export type PlayerAction = 'approve' | 'reject' | 'edit_wording' | 'edit_content';
export type ResumePayload =
  | { type: 'clarification'; player_name: string; sport?: Sport }
  | { type: 'plan_approval'; approved: boolean; plan_steps?: string[]; query_hints?: string[] }
  | { type: 'player_approval'; action: PlayerAction; feedback?: string };

export interface PlayerRecord extends Omit<PlayerFields, 'sport'> {
  _id: string;
  sport: string;
  run_id: string;
  latest_report_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportRecord {
  _id: string;
  player_id: string;
  run_id: string;
  request_text: string | null;
  report_text: string;
  report_summary: string[];
  coverage: Coverage | null;
  source_doc_ids: string[];
  created_at: string;
}

/** A line of GET /reports: the report without its text, with the player it is about. */
export interface ReportSummary extends Omit<ReportRecord, 'report_text'> {
  player_name: string | null;
  sport: Sport | null;
}

export type DocumentStatus = 'queued' | 'indexed' | 'failed' | 'deleted';

/** GET /documents/:id, a line of GET /documents, and a document's reply in a batch's results. */
export interface DocumentRow {
  document_id: string;
  status: DocumentStatus;
  name: string | null;
  format: 'text' | 'markdown' | 'pdf' | null;
  size: number | null;
  pages: number | null;
  chunk_count: number;
  words: number;
  reason: string | null;
  created_at: string | null;
  indexed_at: string | null;
  /** Set on the reply to an upload of content already indexed. */
  duplicate?: boolean;
}

/** The 202 answer of POST /documents. */
export interface UploadAccepted {
  batchId: string;
  total: number;
  events: string;
  results: string;
  documents: Array<{ document_id: string; name: string }>;
}

export interface BatchResult {
  messageId: string;
  actorId: string | null;
  ok: boolean;
  reply?: DocumentRow | null;
  error?: { code?: string; message?: string } | null;
}

export interface BatchProgress {
  batchId: string;
  total: number;
  done: number;
  failed: number;
  finished: boolean;
}

export const runPath = (runId: string) => `/scouting/runs/${encodeURIComponent(runId)}`;

export const listDocuments = (signal?: AbortSignal) => api<{ documents: DocumentRow[] }>('/documents', { signal }).then((r) => r.documents);
export const listRuns = (signal?: AbortSignal) => api<{ runs: RunSummary[] }>('/scouting/runs', { signal }).then((r) => r.runs);
export const getRun = (runId: string, signal?: AbortSignal) => api<RunView>(runPath(runId), { signal });

export function listPlayers(filter: { q?: string; sport?: string }, signal?: AbortSignal) {
  const query = new URLSearchParams();
  if (filter.q) query.set('q', filter.q);
  if (filter.sport) query.set('sport', filter.sport);
  const suffix = query.toString() ? `?${query}` : '';
  return api<{ players: PlayerRecord[] }>(`/players${suffix}`, { signal }).then((r) => r.players);
}

export const getPlayer = (id: string, signal?: AbortSignal) =>
  api<{ player: PlayerRecord; latest_report: ReportRecord | null }>(`/players/${encodeURIComponent(id)}`, { signal });
export const listReports = (signal?: AbortSignal) => api<{ reports: ReportSummary[] }>('/reports', { signal }).then((r) => r.reports);
export const getReport = (id: string, signal?: AbortSignal) => api<{ report: ReportRecord }>(`/reports/${encodeURIComponent(id)}`, { signal }).then((r) => r.report);

export function uploadDocuments(files: File[]): Promise<UploadAccepted> {
  const form = new FormData();
  for (const file of files) form.append('files', file, file.name);
  return api<UploadAccepted>('/documents', { body: form });
}

/** Every finished message of a batch (all pages). */
export async function batchResults(batchId: string, signal?: AbortSignal): Promise<BatchResult[]> {
  const all: BatchResult[] = [];
  let after: string | null = null;
  do {
    const query: string = after ? `?limit=100&after=${after}` : '?limit=100';
    const page: { results: BatchResult[]; next: string | null } = await api(`/batches/${encodeURIComponent(batchId)}/results${query}`, { signal });
    all.push(...page.results);
    after = page.next;
  } while (after);
  return all;
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');
