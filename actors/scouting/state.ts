/**
 * A scouting run as its actor keeps it: where it stands (the gate it waits at, with what that gate
 * shows), what it found so far, its final response, and the graph's checkpoint. Views say what the
 * owner sees (never the checkpoint).
 */
import type { GateName, GateProposal, RunResponse } from './graph.js';
import type { PortableCheckpoint } from './run-checkpoint.js';
import type { Coverage, Sport } from './schemas.js';

export type RunStatus = 'new' | 'awaiting_clarification' | 'awaiting_plan_approval' | 'awaiting_player_approval' | 'completed' | 'expired';

export const STATUS_OF_GATE: Record<GateName, RunStatus> = {
  clarification: 'awaiting_clarification',
  plan_approval: 'awaiting_plan_approval',
  player_approval: 'awaiting_player_approval',
};

export interface ScoutingRunState {
  run_id: string;
  status: RunStatus;
  created_at: string | null;
  updated_at: string | null;
  request: string | null;
  auto_approve: boolean;
  player_name: string | null;
  sport: Sport | null;
  plan_steps: string[];
  query_hints: string[];
  /** The gate the run waits at and what it shows, or null. */
  pending: (GateProposal & { since: string }) | null;
  coverage: Coverage | null;
  warnings: string[];
  edit_loops: number;
  response: RunResponse | null;
  /** Time spent working (all turns), not waiting at gates. */
  work_ms: number;
  turns: number;
  /** The graph's latest checkpoint (RunCheckpointer); null before the first turn and once finished. */
  checkpoint: PortableCheckpoint | null;
}

export const initialRun = (runId: string): ScoutingRunState => ({
  run_id: runId,
  status: 'new',
  created_at: null,
  updated_at: null,
  request: null,
  auto_approve: false,
  player_name: null,
  sport: null,
  plan_steps: [],
  query_hints: [],
  pending: null,
  coverage: null,
  warnings: [],
  edit_loops: 0,
  response: null,
  work_ms: 0,
  turns: 0,
  checkpoint: null,
});

/** What GET /scouting/runs/:id and scouting_status show: the status, the pending gate and the result. */
export function runView(state: ScoutingRunState) {
  return {
    run_id: state.run_id,
    status: state.status,
    request: state.request,
    player_name: state.player_name,
    sport: state.sport,
    plan_steps: state.plan_steps,
    query_hints: state.query_hints,
    pending_gate: state.pending,
    coverage: state.coverage,
    warnings: state.warnings,
    edit_loops: state.edit_loops,
    result: state.response,
    work_ms: Math.round(state.work_ms * 10) / 10,
    created_at: state.created_at,
    updated_at: state.updated_at,
  };
}
export type RunView = ReturnType<typeof runView>;

/** A line of GET /scouting/runs. */
export const runSummary = (state: ScoutingRunState) => ({
  run_id: state.run_id,
  status: state.status,
  player_name: state.player_name,
  sport: state.sport,
  waiting_for: state.pending?.gate ?? null,
  saved: state.response?.saved ?? false,
  created_at: state.created_at,
  updated_at: state.updated_at,
});
