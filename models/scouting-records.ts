/**
 * What a scouting run saves: the player and the report, written together in one transaction
 * (spec FR-09) and at most once per run (a re-run after a crash finds the first save).
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

export interface PlayerRecord {
  _id: string;
  ownerId: string;
  /** The run that created it: unique, so a re-run never creates a second player. */
  run_id: string;
  display_name: string;
  sport: string;
  positions?: string[];
  teams?: string[];
  league?: string;
  physical?: { height_cm?: number; weight_kg?: number };
  scouting?: { strengths?: string[]; weaknesses?: string[]; style_tags?: string[]; role_projection?: string };
  latest_report_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ScoutingReportRecord {
  _id: string;
  ownerId: string;
  player_id: string;
  run_id: string;
  request_text: string | null;
  report_text: string;
  report_summary: string[];
  coverage: unknown;
  source_doc_ids: string[];
  created_at: Date;
}

const playerSchema = new Schema<PlayerRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    run_id: { type: String, required: true, unique: true },
    display_name: { type: String, required: true },
    sport: { type: String, required: true },
    positions: { type: [String], default: undefined },
    teams: { type: [String], default: undefined },
    league: { type: String },
    physical: { type: Schema.Types.Mixed },
    scouting: { type: Schema.Types.Mixed },
    latest_report_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'players', versionKey: false },
);
playerSchema.index({ ownerId: 1, sport: 1 });
playerSchema.index({ ownerId: 1, display_name: 1 });

const reportSchema = new Schema<ScoutingReportRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true, index: true },
    player_id: { type: String, required: true },
    run_id: { type: String, required: true, unique: true },
    request_text: { type: String, default: null },
    report_text: { type: String, required: true },
    report_summary: { type: [String], default: [] },
    coverage: { type: Schema.Types.Mixed },
    source_doc_ids: { type: [String], default: [] },
    created_at: { type: Date, required: true },
  },
  { collection: 'scouting_reports', versionKey: false },
);

export function scoutingModels(connection: Connection): { players: Model<PlayerRecord>; reports: Model<ScoutingReportRecord> } {
  return {
    players: modelOn<PlayerRecord>(connection, 'Player', playerSchema),
    reports: modelOn<ScoutingReportRecord>(connection, 'ScoutingReport', reportSchema),
  };
}

export interface SaveInput {
  ownerId: string;
  runId: string;
  request: string | null;
  player: Omit<PlayerRecord, '_id' | 'ownerId' | 'run_id' | 'latest_report_id' | 'created_at' | 'updated_at'>;
  report: Pick<ScoutingReportRecord, 'report_text' | 'report_summary' | 'coverage' | 'source_doc_ids'>;
}

export interface Saved {
  player_record_id: string;
  report_id: string;
  /** False when this run had already saved (a re-run after a crash): nothing new was written. */
  created: boolean;
}

async function savedBy(models: ReturnType<typeof scoutingModels>, ownerId: string, runId: string): Promise<Saved | null> {
  const report = await models.reports.findOne({ ownerId, run_id: runId }, { _id: 1, player_id: 1 }).lean().exec();
  return report ? { player_record_id: report.player_id, report_id: report._id, created: false } : null;
}

/**
 * Inserts the player, inserts the report with its player id, and points the player at the report:
 * all or nothing. Idempotent per run: the run id is unique on both collections.
 */
export async function savePlayerAndReport(connection: Connection, input: SaveInput): Promise<Saved> {
  const models = scoutingModels(connection);
  const earlier = await savedBy(models, input.ownerId, input.runId);
  if (earlier) return earlier;
  const at = new Date();
  const playerId = randomUUID();
  const reportId = randomUUID();
  try {
    await connection.transaction(async (session) => {
      await models.players.create([{ ...input.player, _id: playerId, ownerId: input.ownerId, run_id: input.runId, latest_report_id: null, created_at: at, updated_at: at }], { session });
      await models.reports.create([{ ...input.report, _id: reportId, ownerId: input.ownerId, player_id: playerId, run_id: input.runId, request_text: input.request, created_at: at }], { session });
      await models.players.updateOne({ _id: playerId }, { $set: { latest_report_id: reportId, updated_at: at } }, { session }).exec();
    });
  } catch (error) {
    // A zombie turn of the same run may have saved first: its save is this run's save.
    if ((error as { code?: number }).code === 11000) {
      const first = await savedBy(models, input.ownerId, input.runId);
      if (first) return first;
    }
    throw error;
  }
  return { player_record_id: playerId, report_id: reportId, created: true };
}
