/**
 * The scouting save (spec FR-09, test_atomic_transaction) on the embedded MongoDB: player, report and
 * the player's latest_report_id in one transaction; nothing at all when a part fails; at most one save
 * per run, even when two turns of the same run save at once (a zombie and its successor).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { savePlayerAndReport, scoutingModels, type SaveInput } from '../../models/scouting-records.js';

describe('scouting save: one transaction, once per run (embedded MongoDB)', function () {
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  const input = (runId: string, ownerId = 'owner-1'): SaveInput => ({
    ownerId,
    runId,
    request: 'Scouting report for Marcus Ellery',
    player: { display_name: 'Marcus Ellery', sport: 'nba', positions: ['SG'], physical: { height_cm: 196 } },
    report: { report_text: '# Scouting report: Marcus Ellery', report_summary: ['Shooter'], coverage: { confidence: 'high' }, source_doc_ids: ['doc-1'] },
  });

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'scouting_save' }).asPromise();
    await Promise.all(Object.values(scoutingModels(conn)).map((model) => model.init()));
  });

  after(async function () {
    await conn?.close();
    await mongo?.stop();
  });

  it('writes the player, the report with its player id, and the player\'s latest_report_id', async function () {
    const runId = randomUUID();
    const saved = await savePlayerAndReport(conn, input(runId));
    expect(saved.created).to.equal(true);
    const { players, reports } = scoutingModels(conn);
    const player = await players.findById(saved.player_record_id).lean();
    const report = await reports.findById(saved.report_id).lean();
    expect(player).to.deep.include({ display_name: 'Marcus Ellery', run_id: runId, latest_report_id: saved.report_id, ownerId: 'owner-1' });
    expect(report).to.deep.include({ player_id: saved.player_record_id, run_id: runId, request_text: 'Scouting report for Marcus Ellery' });
  });

  it('saves once per run: a second save of the same run (a re-run after a crash) writes nothing and answers the first ids', async function () {
    const runId = randomUUID();
    const first = await savePlayerAndReport(conn, input(runId));
    const again = await savePlayerAndReport(conn, input(runId));
    expect(again).to.deep.equal({ ...first, created: false });
    const { players, reports } = scoutingModels(conn);
    expect(await players.countDocuments({ run_id: runId })).to.equal(1);
    expect(await reports.countDocuments({ run_id: runId })).to.equal(1);
  });

  it('two saves of one run at the same moment leave one player and one report, and both answer its ids', async function () {
    const runId = randomUUID();
    const both = await Promise.all([savePlayerAndReport(conn, input(runId)), savePlayerAndReport(conn, input(runId))]);
    expect(both[0].player_record_id).to.equal(both[1].player_record_id);
    expect(both[0].report_id).to.equal(both[1].report_id);
    expect(both.filter((s) => s.created)).to.have.length(1);
    expect(await scoutingModels(conn).players.countDocuments({ run_id: runId })).to.equal(1);
  });

  it('rolls back on a partial failure: the report cannot be written, so no player is left behind', async function () {
    const runId = randomUUID();
    // Another owner's report already holds this run id: the report insert fails after the player's.
    await scoutingModels(conn).reports.create({ _id: randomUUID(), ownerId: 'someone-else', player_id: 'p', run_id: runId, request_text: null, report_text: 'x', report_summary: [], coverage: null, source_doc_ids: [], created_at: new Date() });
    const failure = await savePlayerAndReport(conn, input(runId)).then(
      () => undefined,
      (error: unknown) => error as { code?: number },
    );
    expect(failure?.code).to.equal(11000);
    expect(await scoutingModels(conn).players.countDocuments({ run_id: runId })).to.equal(0);
  });
});
