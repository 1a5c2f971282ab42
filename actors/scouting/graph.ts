/**
 * A scouting run as a LangGraph StateGraph, the spec's nodes in order:
 *
 *   intake ─ plan ─ gate_plan ─┬─ build_queries ─ retrieve ─ extract ─ compose ─ gate_player ─┬─ save ─ respond ─ END
 *     (clarification           └─ respond (plan refused)        ▲           ▲            ├─ respond (reject)
 *      interrupt)                                               │           └────────────┤ edit_wording
 *                                                               └────────────────────────┘ edit_content (from build_queries)
 *
 * The three waits for a person are LangGraph `interrupt()`s, resumed with `Command({ resume })` after
 * the actor has validated the answer; the checkpointer keeps the run between them. Nodes stream the
 * run's events (progress with the spec's trace points, coverage_report, warning) through the custom
 * stream; the gates' proposals (plan_proposal, player_preview) are the interrupts' values. What needs
 * MongoDB or a model comes in through `configurable.scouting` (RunSteps), so the graph stays testable.
 */
import { Annotation, END, interrupt, START, StateGraph, type BaseCheckpointSaver, type LangGraphRunnableConfig, type RetryPolicy } from '@langchain/langgraph';
import type { Saved } from '../../models/scouting-records.js';
import type { RetrievalResult } from '../documents/retriever.js';
import { composeOffline } from './composition.js';
import { coverageOf, mergeEvidence } from './evidence.js';
import { intakeRequest, sanitizeName, sportFromEvidence } from './intake.js';
import { draftPlan } from './plan.js';
import { buildQueries, diversificationScore } from './queries.js';
import { LIMITS, type Coverage, type EvidenceChunk, type Extraction, type ReportDraft, type Sport } from './schemas.js';

export type PlayerAction = 'approve' | 'reject' | 'edit_wording' | 'edit_content';

/** What each gate shows the person (the interrupt's value). */
export type GateProposal =
  | { gate: 'clarification'; message: string; request: string }
  | { gate: 'plan_approval'; player_name: string; sport_guess: Sport; plan_steps: string[]; query_hints: string[] }
  | {
      gate: 'player_approval';
      player_fields: Extraction['player_fields'];
      report_summary: string[];
      report_text: string;
      db_payload_preview: Record<string, unknown>;
      edit_loops: number;
      edits_left: number;
    };
export type GateName = GateProposal['gate'];

/** The answers the gates resume with (validated by the actor before they reach the graph). */
export interface ClarificationAnswer {
  player_name: string;
  sport?: Sport;
}
export interface PlanAnswer {
  approved: boolean;
  plan_steps?: string[];
  query_hints?: string[];
}
export interface PlayerAnswer {
  action: PlayerAction;
  feedback?: string;
}

/** The run's final response (spec FR-10). */
export interface RunResponse {
  scouting_report: string | null;
  player_record_id: string | null;
  report_id: string | null;
  saved: boolean;
  coverage: Coverage | null;
  player_fields: Extraction['player_fields'] | null;
  report_summary: string[];
  outcome: 'saved' | 'rejected' | 'save_failed' | 'plan_declined';
  message: string;
}

/** What the nodes need from the outside world, given per turn in `configurable.scouting`. */
export interface RunSteps {
  retrieve(queries: string[], signal: AbortSignal): Promise<RetrievalResult>;
  extract(chunks: EvidenceChunk[], player: { player_name: string; sport: Sport }, signal: AbortSignal): Promise<Extraction>;
  compose(input: Parameters<typeof composeOffline>[0], signal: AbortSignal): Promise<ReportDraft>;
  save(input: { player: Extraction['player_fields']; draft: ReportDraft; coverage: Coverage; request: string }, signal: AbortSignal): Promise<Saved>;
  /** Batch runs go through both gates without stopping (autoApprove). */
  autoApprove: boolean;
  signal: AbortSignal;
  /** The spec's trace points (NFR-03), for the logs. */
  trace(point: string, metadata: Record<string, unknown>): void;
}

/** A run's event for the client, written to the graph's custom stream. */
export interface RunEvent {
  event: 'progress' | 'coverage_report' | 'warning';
  data: Record<string, unknown>;
}

export const NO_NAME_MESSAGE = "I couldn't identify the player name. Please specify.";
export const NO_DOCUMENTS_WARNING = 'No uploaded documents found. Report based on limited info.';
export const LOW_CONFIDENCE_WARNING = 'Limited information found. Consider uploading more documents.';
export const SAVE_FAILED_MESSAGE = "Couldn't save player. Report returned without saving.";

export const RunState = Annotation.Root({
  run_id: Annotation<string>(),
  request: Annotation<string>(),
  player_name: Annotation<string | null>(),
  sport: Annotation<Sport>(),
  plan_steps: Annotation<string[]>(),
  query_hints: Annotation<string[]>(),
  plan_declined: Annotation<boolean>(),
  queries: Annotation<string[]>(),
  chunks: Annotation<EvidenceChunk[]>(),
  coverage: Annotation<Coverage | null>(),
  retrieval: Annotation<Omit<RetrievalResult, 'results'> | null>(),
  extraction: Annotation<Extraction | null>(),
  draft: Annotation<ReportDraft | null>(),
  content_feedback: Annotation<string | null>(),
  wording_feedback: Annotation<string | null>(),
  edit_loops: Annotation<number>(),
  decision: Annotation<PlayerAction | null>(),
  saved: Annotation<Saved | null>(),
  warnings: Annotation<string[]>(),
  response: Annotation<RunResponse | null>(),
});
export type RunStateType = typeof RunState.State;

/** The graph's input for a new run. */
export function runStart(runId: string, request: string, hints: string[] = []): RunStateType {
  return {
    run_id: runId,
    request,
    player_name: null,
    sport: 'unknown',
    plan_steps: [],
    query_hints: hints,
    plan_declined: false,
    queries: [],
    chunks: [],
    coverage: null,
    retrieval: null,
    extraction: null,
    draft: null,
    content_feedback: null,
    wording_feedback: null,
    edit_loops: 0,
    decision: null,
    saved: null,
    warnings: [],
    response: null,
  };
}

/** A run that cannot go on without a name and has nobody to ask (batch mode): not worth retrying. */
export class PlayerNameNotFound extends Error {
  constructor(request: string) {
    super(`${NO_NAME_MESSAGE} (request: "${request.slice(0, 120)}")`);
    this.name = 'PlayerNameNotFound';
  }
}

const stepsOf = (config: LangGraphRunnableConfig): RunSteps => (config.configurable as { scouting: RunSteps }).scouting;
const write = (config: LangGraphRunnableConfig, event: RunEvent['event'], data: Record<string, unknown>) => config.writer?.({ event, data } satisfies RunEvent);
function progress(config: LangGraphRunnableConfig, step: string, message: string, trace?: { point: string; metadata: Record<string, unknown> }) {
  write(config, 'progress', { step, message, ...(trace ? { trace: trace.point, ...trace.metadata } : {}) });
  if (trace) stepsOf(config).trace(trace.point, trace.metadata);
}
const warn = (config: LangGraphRunnableConfig, warnings: string[], message: string) => {
  write(config, 'warning', { message });
  return [...warnings, message];
};

/** Runs a step that calls out; a failure is logged and shown before the retry policy decides. */
async function attempt<T>(config: LangGraphRunnableConfig, step: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const steps = stepsOf(config);
    if (!steps.signal.aborted) {
      const reason = error instanceof Error ? error.message : String(error);
      steps.trace('step_failed', { step, error: reason });
      write(config, 'progress', { step, message: `The ${step} step failed (${reason.slice(0, 200)}); it is retried up to ${RETRY_POLICY.maxAttempts} attempts in all.` });
    }
    throw error;
  }
}

async function intake(state: RunStateType, config: LangGraphRunnableConfig): Promise<Partial<RunStateType>> {
  const steps = stepsOf(config);
  const read = intakeRequest(state.request);
  let playerName = read.player_name ? sanitizeName(read.player_name) : null;
  let sport = read.sport_guess;
  if (!playerName) {
    if (steps.autoApprove) throw new PlayerNameNotFound(state.request);
    const answer = interrupt<GateProposal, ClarificationAnswer>({ gate: 'clarification', message: NO_NAME_MESSAGE, request: state.request });
    playerName = sanitizeName(answer.player_name);
    sport = answer.sport ?? intakeRequest(`${state.request} ${answer.player_name}`).sport_guess;
  }
  if (sport === 'unknown') {
    // The request does not say: what the owner's documents say about the player does.
    const found = await steps.retrieve([playerName], steps.signal);
    sport = sportFromEvidence(found.results.flatMap((r) => r.hits.map((h) => h.text)));
  }
  progress(config, 'intake', `Scouting ${playerName} (sport: ${sport}).`, {
    point: 'scouting_workflow_start',
    metadata: { player_name: playerName, sport_guess: sport, session_id: state.run_id },
  });
  return { player_name: playerName, sport };
}

function plan(state: RunStateType, config: LangGraphRunnableConfig): Partial<RunStateType> {
  const drafted = draftPlan({ player_name: state.player_name!, sport: state.sport, hints: state.query_hints });
  progress(config, 'plan', `Drafted a ${drafted.plan_steps.length}-step plan.`, {
    point: 'plan_generated',
    metadata: { plan_steps: drafted.plan_steps.length, query_hints: drafted.query_hints.length },
  });
  return drafted;
}

function gatePlan(state: RunStateType, config: LangGraphRunnableConfig): Partial<RunStateType> {
  if (stepsOf(config).autoApprove) return {};
  const answer = interrupt<GateProposal, PlanAnswer>({
    gate: 'plan_approval',
    player_name: state.player_name!,
    sport_guess: state.sport,
    plan_steps: state.plan_steps,
    query_hints: state.query_hints,
  });
  if (!answer.approved) return { plan_declined: true };
  return { plan_steps: answer.plan_steps ?? state.plan_steps, query_hints: answer.query_hints ?? state.query_hints };
}

function queries(state: RunStateType, config: LangGraphRunnableConfig): Partial<RunStateType> {
  const built = buildQueries({ player_name: state.player_name!, sport: state.sport, query_hints: state.query_hints, ...(state.content_feedback ? { feedback: state.content_feedback } : {}) });
  progress(config, 'queries', `Built ${built.length} search queries.`, {
    point: 'queries_built',
    metadata: { query_count: built.length, diversification_score: Math.round(diversificationScore(built) * 100) / 100 },
  });
  return { queries: built };
}

async function retrieve(state: RunStateType, config: LangGraphRunnableConfig): Promise<Partial<RunStateType>> {
  const steps = stepsOf(config);
  const found = await attempt(config, 'retrieve', () => steps.retrieve(state.queries, steps.signal));
  const chunks = mergeEvidence(found.results, LIMITS.maxChunks);
  const sport = state.sport === 'unknown' ? sportFromEvidence(chunks.map((c) => c.text)) : state.sport;
  const coverage = coverageOf(chunks, state.player_name!, sport);
  let warnings = state.warnings.filter((w) => w !== NO_DOCUMENTS_WARNING && w !== LOW_CONFIDENCE_WARNING && !w.startsWith('Search '));
  if (found.degraded) warnings = warn(config, warnings, `Search fell back to keywords (BM25): ${found.degraded}`);
  if (found.documents === 0) warnings = warn(config, warnings, NO_DOCUMENTS_WARNING);
  else if (coverage.confidence === 'low') warnings = warn(config, warnings, LOW_CONFIDENCE_WARNING);
  write(config, 'coverage_report', { ...coverage });
  progress(config, 'retrieve', `Found ${chunks.length} passages among your ${found.documents} documents (${found.mode === 'bm25' ? 'keyword search' : 'keyword and vector search'}).`, {
    point: 'evidence_retrieved',
    metadata: { chunk_count: chunks.length, found: coverage.found, missing: coverage.missing, confidence: coverage.confidence, mode: found.mode },
  });
  const { results: _results, ...retrieval } = found;
  return { chunks, coverage, sport, warnings, retrieval };
}

async function extract(state: RunStateType, config: LangGraphRunnableConfig): Promise<Partial<RunStateType>> {
  const steps = stepsOf(config);
  const extraction = await attempt(config, 'extract', () => steps.extract(state.chunks, { player_name: state.player_name!, sport: state.sport }, steps.signal));
  const fields = Object.keys(extraction.player_fields).filter((k) => k !== 'display_name' && k !== 'sport');
  progress(config, 'extract', `Extracted ${extraction.raw_facts.length} facts.`, {
    point: 'fields_extracted',
    metadata: { field_count: fields.length, raw_facts: extraction.raw_facts.length },
  });
  return { extraction };
}

async function compose(state: RunStateType, config: LangGraphRunnableConfig): Promise<Partial<RunStateType>> {
  const steps = stepsOf(config);
  const draft = await attempt(config, 'compose', () =>
    steps.compose(
    {
      player_name: state.player_name!,
      sport: state.sport,
      extraction: state.extraction!,
      chunks: state.chunks,
      coverage: state.coverage!,
      ...(state.content_feedback ? { feedback: state.content_feedback } : {}),
      ...(state.wording_feedback ? { wording: state.wording_feedback } : {}),
    },
    steps.signal,
    ),
  );
  progress(config, 'compose', `Drafted the report (${draft.word_count} words).`, {
    point: 'report_composed',
    metadata: { section_count: draft.sections.length, word_count: draft.word_count },
  });
  return { draft };
}

/** What the save would write, shown at gate B. */
export const dbPayloadPreview = (state: RunStateType) => ({
  player: state.extraction!.player_fields,
  report: { report_summary: state.draft!.report_summary, word_count: state.draft!.word_count, source_doc_ids: state.draft!.source_doc_ids, coverage: state.coverage },
});

function gatePlayer(state: RunStateType, config: LangGraphRunnableConfig): Partial<RunStateType> {
  if (stepsOf(config).autoApprove) return { decision: 'approve' };
  const answer = interrupt<GateProposal, PlayerAnswer>({
    gate: 'player_approval',
    player_fields: state.extraction!.player_fields,
    report_summary: state.draft!.report_summary,
    report_text: state.draft!.report_text,
    db_payload_preview: dbPayloadPreview(state),
    edit_loops: state.edit_loops,
    edits_left: LIMITS.maxEditLoops - state.edit_loops,
  });
  const feedback = answer.feedback?.trim() || null;
  switch (answer.action) {
    case 'edit_wording':
      return { decision: 'edit_wording', wording_feedback: feedback, edit_loops: state.edit_loops + 1 };
    case 'edit_content':
      return { decision: 'edit_content', content_feedback: feedback, wording_feedback: null, edit_loops: state.edit_loops + 1 };
    default:
      return { decision: answer.action };
  }
}

async function save(state: RunStateType, config: LangGraphRunnableConfig): Promise<Partial<RunStateType>> {
  const steps = stepsOf(config);
  try {
    const saved = await steps.save({ player: state.extraction!.player_fields, draft: state.draft!, coverage: state.coverage!, request: state.request }, steps.signal);
    progress(config, 'save', saved.created ? 'Saved the player and the report.' : 'The player and the report were already saved by this run.', {
      point: 'player_created',
      metadata: { player_id: saved.player_record_id, report_id: saved.report_id },
    });
    return { saved };
  } catch (error) {
    if (steps.signal.aborted) throw error;
    steps.trace('player_save_failed', { error: (error as Error).message });
    return { saved: null, warnings: warn(config, state.warnings, SAVE_FAILED_MESSAGE) };
  }
}

function respond(state: RunStateType, config: LangGraphRunnableConfig): Partial<RunStateType> {
  const outcome: RunResponse['outcome'] = state.plan_declined ? 'plan_declined' : state.decision === 'reject' ? 'rejected' : state.saved ? 'saved' : 'save_failed';
  const message = {
    plan_declined: 'The plan was declined: nothing was researched or saved.',
    rejected: 'The player was not saved; here is the report.',
    saved: `Saved ${state.player_name} and the report.`,
    save_failed: SAVE_FAILED_MESSAGE,
  }[outcome];
  progress(config, 'respond', message);
  return {
    response: {
      scouting_report: state.draft?.report_text ?? null,
      player_record_id: state.saved?.player_record_id ?? null,
      report_id: state.saved?.report_id ?? null,
      saved: state.saved !== null,
      coverage: state.coverage,
      player_fields: state.extraction?.player_fields ?? null,
      report_summary: state.draft?.report_summary ?? [],
      outcome,
      message,
    },
  };
}

/** The spec's retry policy (3 attempts, 1 s doubling to at most 10 s) for steps that call out. */
export const RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialInterval: 1000,
  backoffFactor: 2,
  maxInterval: 10_000,
  jitter: false,
  // Failures are logged and streamed by `attempt` (LangGraph's own warning goes to the console).
  logWarning: false,
  retryOn: (error: unknown) => !(error instanceof PlayerNameNotFound) && (error as Error)?.name !== 'AbortError' && (error as Error)?.name !== 'RequestError',
};

const builder = new StateGraph(RunState)
  .addNode('intake', intake)
  .addNode('plan', plan)
  .addNode('gate_plan', gatePlan)
  .addNode('build_queries', queries)
  .addNode('retrieve', retrieve, { retryPolicy: RETRY_POLICY })
  .addNode('extract', extract, { retryPolicy: RETRY_POLICY })
  .addNode('compose', compose, { retryPolicy: RETRY_POLICY })
  .addNode('gate_player', gatePlayer)
  .addNode('save', save)
  .addNode('respond', respond)
  .addEdge(START, 'intake')
  .addEdge('intake', 'plan')
  .addEdge('plan', 'gate_plan')
  .addConditionalEdges('gate_plan', (s: RunStateType) => (s.plan_declined ? 'respond' : 'build_queries'), ['respond', 'build_queries'])
  .addEdge('build_queries', 'retrieve')
  .addEdge('retrieve', 'extract')
  .addEdge('extract', 'compose')
  .addEdge('compose', 'gate_player')
  .addConditionalEdges(
    'gate_player',
    (s: RunStateType) => ({ approve: 'save', reject: 'respond', edit_wording: 'compose', edit_content: 'build_queries' })[s.decision ?? 'reject'],
    ['save', 'respond', 'compose', 'build_queries'],
  )
  .addEdge('save', 'respond')
  .addEdge('respond', END);

/** The run graph over one run's checkpointer (a turn compiles it with the run's saved checkpoint). */
export const runGraph = (checkpointer: BaseCheckpointSaver) => builder.compile({ checkpointer });
export type RunGraph = ReturnType<typeof runGraph>;
