/**
 * One turn of a scouting run: the run graph from the run's checkpoint to its next gate or its end,
 * with the outside world its nodes use (this owner's documents, the model or the offline policy, the
 * save). Loaded by the kind on a run's first turn.
 */
import { Command } from '@langchain/langgraph';
import { savePlayerAndReport } from '../../models/scouting-records.js';
import { ownerIndexesFor } from '../documents/kind.js';
import { Retriever } from '../documents/retriever.js';
import { RequestError, type TurnContext } from '../runtime/contract.js';
import { composeOffline } from './composition.js';
import { extractOffline } from './extraction.js';
import { PlayerNameNotFound, runGraph, runStart, type GateProposal, type RunEvent, type RunGraph, type RunStateType, type RunSteps } from './graph.js';
import { composeWithModel, extractWithModel, ModelTimeout } from './model-steps.js';
import { RunCheckpointer } from './run-checkpoint.js';
import { STATUS_OF_GATE, type ScoutingRunState } from './state.js';

/** What moves a run on: its start (the request) or the answer to the gate it waits at. */
export type RunStep = { start: { request: string; queryHints?: string[] | undefined } } | { resume: unknown };

/** Search over the worker's shared in-memory indexes (they outlive the turn; the retriever need not). */
const retrieverFor = (ctx: TurnContext) => new Retriever(ctx.resources.mongo, { embedder: ctx.resources.embedder, indexes: ownerIndexesFor(ctx.resources.mongo) });

/** The outside world the graph's nodes use: this owner's documents, the model (or the offline policy), the save. */
function stepsFor(state: ScoutingRunState, ctx: TurnContext, autoApprove: boolean): RunSteps {
  const model = ctx.resources.chatModel;
  return {
    retrieve: (queries, signal) => retrieverFor(ctx).search(ctx.ownerId, queries, { signal }),
    extract: async (chunks, player, signal) => (model ? extractWithModel(model, chunks, player, { signal }) : extractOffline(chunks, player)),
    compose: async (input, signal) => (model ? composeWithModel(model, input, { signal }) : composeOffline(input)),
    save: ({ player, draft, coverage, request }) => {
      const { display_name, sport, ...rest } = player;
      return savePlayerAndReport(ctx.resources.mongo, {
        ownerId: ctx.ownerId,
        runId: state.run_id,
        request,
        player: { display_name, sport, ...rest },
        report: { report_text: draft.report_text, report_summary: draft.report_summary, coverage, source_doc_ids: draft.source_doc_ids },
      });
    },
    autoApprove,
    signal: ctx.signal,
    trace: (point, metadata) => ctx.logger.info({ trace: point, run: state.run_id, ...metadata }, point),
  };
}

/** The event a gate's proposal is shown as (spec section 4.2). */
function gateEvent(proposal: GateProposal): [string, Record<string, unknown>] {
  switch (proposal.gate) {
    case 'clarification':
      return ['clarification', { message: proposal.message, request: proposal.request }];
    case 'plan_approval': {
      const { gate: _gate, ...data } = proposal;
      return ['plan_proposal', data];
    }
    case 'player_approval': {
      const { gate: _gate, ...data } = proposal;
      return ['player_preview', data];
    }
  }
}

/** Runs the graph from the run's checkpoint until it waits or ends, and the run state that results. */
export async function advance(state: ScoutingRunState, step: RunStep, ctx: TurnContext): Promise<ScoutingRunState> {
  const started = performance.now();
  const input: Parameters<RunGraph['stream']>[0] = 'start' in step ? runStart(state.run_id, step.start.request, step.start.queryHints) : new Command({ resume: step.resume });
  const checkpointer = new RunCheckpointer(state.run_id, state.checkpoint);
  const graph = runGraph(checkpointer);
  const config = { configurable: { thread_id: state.run_id, scouting: stepsFor(state, ctx, state.auto_approve) } };
  let proposal: GateProposal | null = null;
  try {
    const stream = await graph.stream(input, { ...config, streamMode: ['custom', 'updates'], signal: ctx.signal, recursionLimit: 80 });
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === 'custom') {
        const { event, data } = chunk as RunEvent;
        ctx.emit(event, data);
      } else {
        const interrupts = (chunk as { __interrupt__?: Array<{ value: GateProposal }> }).__interrupt__;
        if (interrupts?.length) proposal = interrupts[0]!.value;
      }
    }
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof PlayerNameNotFound) throw new RequestError('bad_request', error.message);
    if (error instanceof ModelTimeout) throw new RequestError('unavailable', error.message);
    throw error;
  }
  const values = (await graph.getState(config)).values as RunStateType;
  const at = new Date().toISOString();
  const next: ScoutingRunState = {
    ...state,
    updated_at: at,
    player_name: values.player_name,
    sport: values.player_name ? values.sport : state.sport,
    plan_steps: values.plan_steps,
    query_hints: values.query_hints,
    coverage: values.coverage,
    warnings: values.warnings,
    edit_loops: values.edit_loops,
    work_ms: state.work_ms + (performance.now() - started),
    turns: state.turns + 1,
  };
  if (proposal) {
    const [event, data] = gateEvent(proposal);
    ctx.emit(event, data);
    if (ctx.resources.gateTimeoutMs !== null) ctx.schedule(ctx.resources.gateTimeoutMs, 'gate_timeout', { since: at });
    return { ...next, status: STATUS_OF_GATE[proposal.gate], pending: { ...proposal, since: at }, checkpoint: checkpointer.latest() };
  }
  // Finished: the checkpoint is no longer needed; the response is the run's result.
  return { ...next, status: 'completed', pending: null, response: values.response, checkpoint: null };
}

