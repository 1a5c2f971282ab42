/**
 * The scouting-run actor: one actor per run. A turn runs the run graph from its last checkpoint to
 * the next gate (or the end) and commits the checkpoint with the run's state, so the run waits at a
 * gate as long as it takes, across restarts. Events are the spec's: progress (with the trace points),
 * coverage_report, warning, plan_proposal, player_preview, clarification; then `run` (the run's view).
 */
import { actorStates } from '../../models/actor-record.js';
import { scoutingModels } from '../../models/scouting-records.js';
import { RequestError, type ActorKind, type ServiceKind, type TurnContext } from '../runtime/contract.js';
import { batches, http, messages, reads, recordMessages, resources, SCOUTING_KIND, SCOUTING_RECORDS_KIND, tools, type ResumePayload, type StartPayload } from './contract.js';
import { validatePlanEdit } from './plan.js';
import { LIMITS } from './schemas.js';
import type { RunStep } from './run-advance.js';
import { initialRun, runSummary, runView, type ScoutingRunState } from './state.js';

const LIST_LIMIT = 100;

/**
 * The run graph (LangGraph, LangChain's core and the model steps: some 500 modules) is imported on a
 * run's first turn, so a process that serves no scouting run never loads it.
 */
async function advanceRun(state: ScoutingRunState, step: RunStep, ctx: TurnContext): Promise<ScoutingRunState> {
  const { advance } = await import('./run-advance.js');
  return advance(state, step, ctx);
}

function finishTurn(next: ScoutingRunState, ctx: TurnContext): ScoutingRunState {
  const view = runView(next);
  ctx.emit('run', view);
  ctx.reply(view);
  return next;
}

async function start(state: ScoutingRunState, payload: StartPayload, ctx: TurnContext): Promise<ScoutingRunState> {
  if (state.created_at !== null) throw new RequestError('conflict', `scouting run ${state.run_id} already exists; use resume`);
  const at = new Date().toISOString();
  ctx.emit('metadata', { run_id: state.run_id, request: payload.request });
  const begun: ScoutingRunState = { ...state, created_at: at, updated_at: at, request: payload.request, auto_approve: payload.auto_approve };
  return finishTurn(await advanceRun(begun, { start: { request: payload.request, queryHints: payload.query_hints } }, ctx), ctx);
}

/** Checks a resume against the gate the run waits at; refusals change nothing. */
function resumeValue(state: ScoutingRunState, payload: ResumePayload): unknown {
  const pending = state.pending;
  if (state.created_at === null) throw new RequestError('not_found', `scouting run ${state.run_id} not found`);
  if (!pending) throw new RequestError('conflict', `scouting run ${state.run_id} is ${state.status.replaceAll('_', ' ')}: it waits at no gate`, { status: state.status });
  if (pending.gate !== payload.type) {
    throw new RequestError('conflict', `scouting run ${state.run_id} waits for ${pending.gate}, not ${payload.type}`, { waiting_for: pending.gate });
  }
  switch (payload.type) {
    case 'clarification':
      return { player_name: payload.player_name, sport: payload.sport };
    case 'plan_approval': {
      const edit = validatePlanEdit({ plan_steps: payload.plan_steps, query_hints: payload.query_hints });
      if (!edit.ok) throw new RequestError('bad_request', `the edited plan is not usable: ${edit.problems.join('; ')}`, { problems: edit.problems });
      return { approved: payload.approved, ...edit.value };
    }
    case 'player_approval': {
      const editing = payload.action === 'edit_wording' || payload.action === 'edit_content';
      if (editing && state.edit_loops >= LIMITS.maxEditLoops) {
        throw new RequestError('conflict', `this run was edited ${state.edit_loops} times, the most allowed: approve or reject it`, { edit_loops: state.edit_loops, limit: LIMITS.maxEditLoops });
      }
      if (editing && !payload.feedback?.trim()) throw new RequestError('bad_request', `${payload.action} needs feedback: say what to change`);
      return { action: payload.action, feedback: payload.feedback };
    }
  }
}

async function resume(state: ScoutingRunState, payload: ResumePayload, ctx: TurnContext): Promise<ScoutingRunState> {
  const value = resumeValue(state, payload);
  ctx.emit('metadata', { run_id: state.run_id, resumed: payload.type });
  return finishTurn(await advanceRun(state, { resume: value }, ctx), ctx);
}

function expire(state: ScoutingRunState, since: string, ctx: TurnContext): ScoutingRunState {
  // Only the wait this timer was set for: a run that moved on since is left alone.
  if (!state.pending || state.pending.since !== since) {
    ctx.reply(runView(state));
    return state;
  }
  ctx.logger.info({ run: state.run_id, gate: state.pending.gate }, 'scouting run expired at its gate');
  const next: ScoutingRunState = { ...state, status: 'expired', pending: null, checkpoint: null, updated_at: new Date().toISOString() };
  ctx.publish('run', runView(next));
  ctx.reply(runView(next));
  return next;
}

export const scoutingKind: ActorKind<ScoutingRunState> = {
  kind: SCOUTING_KIND,
  stateful: true,
  description: 'Scouting runs: a LangGraph agent that researches a player from your documents, with your approval of the plan and of the saved player.',
  messages,
  http,
  reads,
  batches,
  tools,
  resources,
  // Spec 7.3: 10 runs started per user per hour (approvals are not new runs), 3 working at once.
  limits: { rate: { points: 10, durationSeconds: 3600 }, concurrent: 3, rateCounts: { types: ['start'], noun: 'runs started' } },
  // Spec NFR-02: an activity may take 5 minutes.
  turnTimeoutMs: 5 * 60 * 1000,
  initialState: (ref) => initialRun(ref.id),
  async handle(state, message, ctx) {
    switch (message.type) {
      case 'start':
        return start(state, message.payload as StartPayload, ctx);
      case 'resume':
        return resume(state, message.payload as ResumePayload, ctx);
      case 'status':
        if (state.created_at === null) throw new RequestError('not_found', `scouting run ${state.run_id} not found`);
        ctx.reply(runView(state));
        return state;
      case 'gate_timeout':
        return expire(state, (message.payload as { since: string }).since, ctx);
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};

/** Lists of the owner's runs, players and reports, straight from MongoDB; every query filters by owner. */
export const scoutingRecordsKind: ServiceKind = {
  kind: SCOUTING_RECORDS_KIND,
  stateful: false,
  description: 'Your scouting runs, saved players and reports.',
  messages: recordMessages,
  concurrency: 8,
  async handle(message, ctx) {
    const owner = message.ownerId;
    const { players, reports } = scoutingModels(ctx.resources.mongo);
    switch (message.type) {
      case 'list_runs': {
        const states = await actorStates<ScoutingRunState>(ctx.resources.mongo, SCOUTING_KIND, { ownerId: owner, 'state.created_at': { $ne: null } }, LIST_LIMIT);
        return { runs: states.map(runSummary) };
      }
      case 'list_players': {
        const { q, sport, limit } = message.payload as { q?: string; sport?: string; limit: number };
        const filter: Record<string, unknown> = { ownerId: owner };
        if (sport) filter.sport = sport;
        if (q) filter.display_name = { $regex: q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
        const found = await players.find(filter, { ownerId: 0 }).sort({ created_at: -1 }).limit(limit).lean().exec();
        return { players: found };
      }
      case 'get_player': {
        const player = await players.findOne({ _id: (message.payload as { id: string }).id, ownerId: owner }, { ownerId: 0 }).lean().exec();
        if (!player) throw new RequestError('not_found', `player ${(message.payload as { id: string }).id} not found`);
        const report = player.latest_report_id ? await reports.findOne({ _id: player.latest_report_id, ownerId: owner }, { ownerId: 0 }).lean().exec() : null;
        return { player, latest_report: report };
      }
      case 'list_reports': {
        const { player_id, limit } = message.payload as { player_id?: string; limit: number };
        const filter: Record<string, unknown> = { ownerId: owner };
        if (player_id) filter.player_id = player_id;
        const found = await reports.find(filter, { ownerId: 0, report_text: 0 }).sort({ created_at: -1 }).limit(limit).lean().exec();
        const named = await players.find({ ownerId: owner, _id: { $in: [...new Set(found.map((r) => r.player_id))] } }, { display_name: 1, sport: 1 }).lean().exec();
        const byId = new Map(named.map((p) => [p._id, p]));
        return { reports: found.map((r) => ({ ...r, player_name: byId.get(r.player_id)?.display_name ?? null, sport: byId.get(r.player_id)?.sport ?? null })) };
      }
      case 'get_report': {
        const report = await reports.findOne({ _id: (message.payload as { id: string }).id, ownerId: owner }, { ownerId: 0 }).lean().exec();
        if (!report) throw new RequestError('not_found', `report ${(message.payload as { id: string }).id} not found`);
        return { report };
      }
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};

