/**
 * The scouting run's contract: its messages (the spec's resume payloads, with the spec's input
 * limits), the HTTP surface (start and resume as SSE, status, list, bulk runs, players and reports)
 * and the MCP tools agents drive a run with.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ActorMessage, BatchRouteContract, HttpRouteContract, ResourceContract, StateRouteContract, ToolContract } from '../runtime/contract.js';
import { LIMITS, Sport } from './schemas.js';
import { runView, type RunView, type ScoutingRunState } from './state.js';

export const SCOUTING_KIND = 'scouting';
export const SCOUTING_RECORDS_KIND = 'scouting-records';

const RunId = z.uuid({ error: 'a run id from POST /scouting/runs or scouting_start' });
const Request = z.string().trim().min(1, { error: 'request must not be empty' }).max(2000);
const Hint = z.string().trim().min(1).max(LIMITS.hintChars, { error: `a query hint is at most ${LIMITS.hintChars} characters` });
const Hints = z.array(Hint).max(LIMITS.hints, { error: `at most ${LIMITS.hints} query hints` });
const Step = z.string().trim().min(1).max(LIMITS.stepChars, { error: `a plan step is at most ${LIMITS.stepChars} characters` });
const Steps = z.array(Step).min(1, { error: 'a plan needs at least one step' }).max(LIMITS.steps, { error: `at most ${LIMITS.steps} plan steps` });
const Feedback = z.string().trim().max(LIMITS.feedbackChars, { error: `feedback is at most ${LIMITS.feedbackChars} characters` });
const PlayerName = z.string().trim().min(1).max(LIMITS.playerName, { error: `a player name is at most ${LIMITS.playerName} characters` });
export const PLAYER_ACTIONS = ['approve', 'reject', 'edit_wording', 'edit_content'] as const;

export const StartPayload = z.object({ request: Request, query_hints: Hints.default([]), auto_approve: z.boolean().default(false) }).strict();
export type StartPayload = z.infer<typeof StartPayload>;

/** The spec's resume payloads (section 4.1), plus the answer to "which player?". */
export const ResumePayload = z.discriminatedUnion('type', [
  z.object({ type: z.literal('clarification'), player_name: PlayerName, sport: Sport.optional() }).strict(),
  z.object({ type: z.literal('plan_approval'), approved: z.boolean(), plan_steps: Steps.optional(), query_hints: Hints.optional() }).strict(),
  z.object({ type: z.literal('player_approval'), action: z.enum(PLAYER_ACTIONS), feedback: Feedback.optional() }).strict(),
]);
export type ResumePayload = z.infer<typeof ResumePayload>;

export const messages = {
  start: StartPayload,
  resume: ResumePayload,
  status: z.object({}).strict(),
  /** Sent by the run to itself when SCOUTING_GATE_TIMEOUT_SECONDS is set. */
  gate_timeout: z.object({ since: z.string() }).strict(),
};

export const recordMessages = {
  list_runs: z.object({}).strict(),
  list_players: z.object({ q: z.string().trim().max(200).optional(), sport: Sport.optional(), limit: z.number().int().min(1).max(100).default(50) }).strict(),
  get_player: z.object({ id: z.string().min(1).max(100) }).strict(),
  get_report: z.object({ id: z.string().min(1).max(100) }).strict(),
  list_reports: z.object({ player_id: z.string().min(1).max(100).optional(), limit: z.number().int().min(1).max(100).default(50) }).strict(),
};

/** Fields of a resume in flat form (HTTP body, MCP arguments); the message schema checks the combination. */
const resumeFields = {
  type: z.enum(['clarification', 'plan_approval', 'player_approval']).describe('Which gate this answers'),
  approved: z.boolean().optional().describe('plan_approval: go ahead (true) or stop the run (false)'),
  plan_steps: Steps.optional().describe('plan_approval: the edited plan'),
  query_hints: Hints.optional().describe('plan_approval: the edited or added query hints'),
  action: z.enum(PLAYER_ACTIONS).optional().describe('player_approval: approve (save), reject (report only), edit_wording (re-compose) or edit_content (search again)'),
  feedback: Feedback.optional().describe('player_approval: what to change, for the edit actions'),
  player_name: PlayerName.optional().describe('clarification: the player to scout'),
  sport: Sport.optional().describe('clarification: nba (basketball), football or unknown'),
};

const resumeMessage = (runId: string, fields: Record<string, unknown>): ActorMessage => ({
  actorId: runId,
  type: 'resume',
  payload: Object.fromEntries(Object.entries(fields).filter(([key, value]) => key in resumeFields && value !== undefined)),
});

const idParams = { id: RunId };
const recordId = z.string().trim().min(1).max(100);

export const http: HttpRouteContract[] = [
  {
    method: 'POST',
    path: '/scouting/runs',
    description: 'Starts a scouting run, answered as SSE: progress, then plan_proposal (or a clarification request) when it waits for you, then run and done.',
    body: { request: Request, query_hints: Hints.optional() },
    stream: { omit: ['reply'] },
    toMessage: ({ body }) => ({ actorId: randomUUID(), type: 'start', payload: { request: body.request, query_hints: body.query_hints ?? [] } }),
  },
  {
    method: 'POST',
    path: '/scouting/runs/:id/resume',
    description: 'Answers the gate a run waits at (plan_approval, player_approval or clarification) and streams the run from there as SSE.',
    params: idParams,
    body: resumeFields,
    stream: { omit: ['reply'] },
    toMessage: ({ params, body }) => resumeMessage(params.id as string, body),
  },
  {
    method: 'GET',
    path: '/scouting/runs',
    description: 'Your scouting runs, newest first.',
    toMessage: () => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'list_runs', payload: {} }),
  },
  {
    method: 'GET',
    path: '/players',
    description: 'Your saved players, newest first; q searches names, sport filters.',
    query: { q: z.string().trim().max(200).optional(), sport: Sport.optional(), limit: z.coerce.number().int().min(1).max(100).optional() },
    toMessage: ({ query }) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'list_players', payload: query }),
  },
  {
    method: 'GET',
    path: '/players/:id',
    description: 'One of your players, with its latest report.',
    params: { id: recordId },
    toMessage: ({ params }) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'get_player', payload: { id: params.id } }),
  },
  {
    method: 'GET',
    path: '/reports',
    description: 'Your saved scouting reports, newest first, with the player each is about (without the report text); player_id filters.',
    query: { player_id: z.string().trim().min(1).max(100).optional(), limit: z.coerce.number().int().min(1).max(100).optional() },
    toMessage: ({ query }) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'list_reports', payload: query }),
  },
  {
    method: 'GET',
    path: '/reports/:id',
    description: 'One of your scouting reports.',
    params: { id: recordId },
    toMessage: ({ params }) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'get_report', payload: { id: params.id } }),
  },
];

export const reads: StateRouteContract[] = [
  {
    path: '/scouting/runs/:id',
    description: 'A run: its status, the gate it waits at (with what that gate shows) and its result.',
    params: idParams,
    actorId: (params) => params.id as string,
    view: (state) => runView(state as ScoutingRunState),
  },
];

const BatchPlayer = z.union([PlayerName, z.object({ name: PlayerName, query_hints: Hints.optional() }).strict()]);

export const batches: BatchRouteContract[] = [
  {
    path: '/scouting/batches',
    description: 'Scouts many players as one batch job (autoApprove: through both gates without stopping). Follow it at /batches/:id.',
    body: { players: z.array(BatchPlayer).min(1).max(100), autoApprove: z.boolean().default(true) },
    toMessages: ({ body }) =>
      (body.players as Array<z.infer<typeof BatchPlayer>>).map((player) => {
        const { name, query_hints = [] } = typeof player === 'string' ? { name: player } : player;
        return { actorId: randomUUID(), type: 'start', payload: { request: `Scouting report for ${name}`, query_hints, auto_approve: body.autoApprove } };
      }),
    describe: (sent) => ({ runs: sent.map((m) => ({ run_id: m.actorId, request: (m.payload as StartPayload).request, status: `/scouting/runs/${m.actorId}` })) }),
  },
];

/** The next step, said to an agent. */
function nextStep(view: RunView): string {
  const gate = view.pending_gate;
  if (!gate) return '';
  const call = `scouting_resume with run_id "${view.run_id}"`;
  switch (gate.gate) {
    case 'clarification':
      return `${gate.message} Answer with ${call}, type "clarification" and player_name.`;
    case 'plan_approval':
      return [
        `Plan for ${gate.player_name} (sport: ${gate.sport_guess}):`,
        ...gate.plan_steps.map((step, i) => `${i + 1}. ${step}`),
        `Query hints: ${gate.query_hints.join(', ') || '(none)'}.`,
        `Approve with ${call}, type "plan_approval", approved true (optionally with edited plan_steps / query_hints), or approved false to stop.`,
      ].join('\n');
    case 'player_approval':
      return [
        gate.report_text,
        '',
        `Save this player? Answer with ${call}, type "player_approval" and action approve, reject, edit_wording or edit_content (with feedback; ${gate.edits_left} edits left).`,
      ].join('\n');
  }
}

/** A run as text for an agent: where it stands, what it found, and what to call next. */
export function runText(view: RunView): string {
  const head = `Scouting run ${view.run_id}: ${view.status.replaceAll('_', ' ')}.`;
  const warnings = view.warnings.length ? `\nWarnings: ${view.warnings.join(' ')}` : '';
  if (view.result) {
    const r = view.result;
    const saved = r.saved ? `Saved: player ${r.player_record_id}, report ${r.report_id}.` : r.message;
    return `${head} ${saved}${warnings}\n\n${r.scouting_report ?? ''}`.trim();
  }
  return `${head}${warnings}\n${nextStep(view)}`.trim();
}

const runOutput = {
  run_id: z.string(),
  status: z.string(),
  pending_gate: z.unknown(),
  coverage: z.unknown(),
  warnings: z.array(z.string()),
  result: z.unknown(),
};
const runToolText = (reply: unknown) => runText(reply as RunView);

export const tools: ToolContract[] = [
  {
    name: 'scouting_start',
    title: 'Start a scouting run',
    description:
      'Starts a scouting report on a player from your uploaded documents (documents_upload). The run drafts a plan and stops for your approval: answer with scouting_resume. ' +
      'Progress arrives as notifications; the answer says which gate the run waits at.',
    input: { request: Request.describe('e.g. "Scouting report for Marcus Delaney"'), query_hints: Hints.optional().describe('Extra topics to search for') },
    output: runOutput,
    text: runToolText,
    toMessage: (args) => ({ actorId: randomUUID(), type: 'start', payload: { request: args.request, query_hints: args.query_hints ?? [] } }),
  },
  {
    name: 'scouting_resume',
    title: 'Answer a scouting run\'s gate',
    description:
      'Answers the gate a scouting run waits at: type "plan_approval" (approved, optional plan_steps / query_hints), "player_approval" (action approve | reject | edit_wording | edit_content, optional feedback) or "clarification" (player_name). The run goes on to its next gate or its end.',
    input: { run_id: RunId, ...resumeFields },
    output: runOutput,
    text: runToolText,
    toMessage: (args) => {
      const { run_id: runId, ...fields } = args as Record<string, unknown>;
      return resumeMessage(runId as string, fields);
    },
  },
  {
    name: 'scouting_status',
    title: 'Scouting run status',
    description: 'Where a scouting run stands: its status, the gate it waits at (with what that gate shows) and its result.',
    input: { run_id: RunId },
    output: runOutput,
    text: runToolText,
    toMessage: (args) => ({ actorId: args.run_id as string, type: 'status', payload: {} }),
  },
  {
    name: 'players_search',
    title: 'Search saved players',
    description: 'Searches the players your scouting runs saved, by name and sport; each with its latest report id.',
    input: { query: z.string().trim().max(200).optional().describe('Part of a name'), sport: Sport.optional(), limit: z.number().int().min(1).max(100).optional() },
    toMessage: (args) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'list_players', payload: { q: args.query, sport: args.sport, limit: args.limit ?? 20 } }),
  },
];

/** What an agent reads into its context: a run as it stands, and a saved report. */
export const resources: ResourceContract[] = [
  {
    name: 'scouting-run',
    title: 'A scouting run',
    description: 'A scouting run as scouting_status answers: its status, the gate it waits at with what to decide, and its result once done.',
    uriTemplate: 'scouting://run/{run_id}',
    toMessage: (variables) => ({ actorId: variables.run_id!, type: 'status', payload: {} }),
  },
  {
    name: 'scouting-report',
    title: 'A saved scouting report',
    description: 'A saved report as Markdown with its citations, for an LLM\'s context.',
    uriTemplate: 'scouting://report/{report_id}',
    mimeType: 'text/markdown',
    toMessage: (variables) => ({ kind: SCOUTING_RECORDS_KIND, actorId: 'service', type: 'get_report', payload: { id: variables.report_id } }),
    render: (data) => (data as { report: { report_text: string } }).report.report_text,
  },
];
