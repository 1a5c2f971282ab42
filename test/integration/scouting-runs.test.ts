/**
 * Scouting runs through the real runtime (in-process workers, real Redis, the embedded MongoDB): the
 * shipped corpus uploaded as a batch job, then the flows of the spec's section 6.2 — approve at both
 * gates, reject, the edit_wording and edit_content loops, low confidence, a clarification, and a run
 * resumed by workers that were not the ones that paused it — and the refusals that change nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { ingestMessage } from '../../actors/documents/contract.js';
import { documentKind, documentListKind, searchIndexKind } from '../../actors/documents/kind.js';
import type { DocumentState } from '../../actors/documents/state.js';
import { scoutingKind, scoutingRecordsKind } from '../../actors/scouting/kind.js';
import { LOW_CONFIDENCE_WARNING, NO_DOCUMENTS_WARNING } from '../../actors/scouting/graph.js';
import type { RunView } from '../../actors/scouting/state.js';
import { sectionTitles } from '../../actors/scouting/composition.js';
import type { AnyKind } from '../../actors/runtime/contract.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { scoutingCorpus } from '../../models/scouting-corpus.js';
import { scoutingModels } from '../../models/scouting-records.js';
import { RedisNames } from '../../queues/keys.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const kinds = [documentKind, documentListKind, searchIndexKind, scoutingKind, scoutingRecordsKind] as AnyKind[];

type Structured = Record<string, unknown>;

describe('scouting runs on the runtime (in-process workers, real Redis, embedded MongoDB, offline)', function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  /** The connection of the workers started after the restart test (closed with the rest). */
  let restarted: mongoose.Connection | undefined;
  const prefix = `test-scouting-${process.pid}-${Date.now().toString(36)}`;
  const names = new RedisNames(prefix);
  const owner = `scout-${randomUUID()}`;


  async function send(ownerId: string, runId: string, type: string, payload: Structured): Promise<ReplyEvent[]> {
    const sent = await client.send({ actor: { kind: 'scouting', id: runId }, ownerId, type, payload });
    return client.reply(sent.replyStream, { idleTimeoutMs: 30_000 });
  }
  const named = (events: ReplyEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data as Structured);
  const failure = (events: ReplyEvent[]) => named(events, 'error')[0] as { code: string; message: string } | undefined;
  function answered(events: ReplyEvent[]): RunView {
    expect(failure(events), JSON.stringify(events)).to.equal(undefined);
    expect(events.at(-1)?.event).to.equal('done');
    return named(events, 'reply')[0] as unknown as RunView;
  }
  const start = async (request: string, ownerId = owner) => {
    const runId = randomUUID();
    return { runId, events: await send(ownerId, runId, 'start', { request }) };
  };
  const approvePlan = (runId: string, ownerId = owner) => send(ownerId, runId, 'resume', { type: 'plan_approval', approved: true });
  const decide = (runId: string, action: string, feedback?: string) => send(owner, runId, 'resume', { type: 'player_approval', action, ...(feedback ? { feedback } : {}) });

  async function uploadCorpus(ownerId: string): Promise<DocumentState[]> {
    const messages = scoutingCorpus().map((d) => ingestMessage(ownerId, d));
    const batchId = await client.sendBatch(ownerId, 'document', messages.map((m) => ({ actor: { kind: 'document', id: m.actorId }, type: m.type, payload: m.payload })));
    for await (const event of client.followBatch(batchId, { idleTimeoutMs: 30_000 })) if (event.event === 'done') break;
    return Promise.all(messages.map(async (m) => (await client.state({ kind: 'document', id: m.actorId }, ownerId)) as DocumentState));
  }

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'scouting_runs' }).asPromise();
    client = new ActorClient(REDIS_URL, conn, kinds, names);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds, logger: silent, names });
    const documents = await uploadCorpus(owner);
    expect(documents.map((d) => d.status)).to.deep.equal(documents.map(() => 'indexed'));
  });

  after(async function () {
    await workers?.close();
    await client?.close();
    await restarted?.close();
    await conn?.close();
    await mongo?.stop();
    await deleteRedisPrefix(prefix);
  });

  it('ingests the corpus as a batch: every file indexed with chunks, the PDF with its pages; the same content again is not indexed twice', async function () {
    const again = await uploadCorpus(owner);
    expect(again.every((d) => d.status === 'indexed' && d.uploads === 2)).to.equal(true);
    const pdf = again.find((d) => d.format === 'pdf');
    expect(pdf?.pages).to.be.greaterThan(1);
    const chunks = await conn.db!.collection('document_chunks').countDocuments({ ownerId: owner });
    expect(chunks).to.equal(again.reduce((n, d) => n + d.chunk_count, 0));
  });

  it('marks a file it cannot read as failed with the reason, without holding up the others in its batch', async function () {
    const other = `scout-${randomUUID()}`;
    const good = ingestMessage(other, { name: 'note.md', bytes: Buffer.from('# Note\n\nJune Okafor plays point guard for the Riverside Rays.') });
    const bad = ingestMessage(other, { name: 'broken.pdf', bytes: Buffer.from('%PDF-1.4 this is not really a pdf') });
    const batchId = await client.sendBatch(other, 'document', [bad, good].map((m) => ({ actor: { kind: 'document', id: m.actorId }, type: m.type, payload: m.payload })));
    let progress: Structured = {};
    for await (const event of client.followBatch(batchId, { idleTimeoutMs: 30_000 })) {
      progress = event.data as Structured;
      if (event.event === 'done') break;
    }
    expect(progress).to.include({ total: 2, done: 1, failed: 1, finished: true });
    const failed = (await client.state({ kind: 'document', id: bad.actorId }, other)) as DocumentState;
    expect(failed.status).to.equal('failed');
    expect(failed.reason).to.be.a('string').and.match(/pdf/i);
    expect(((await client.state({ kind: 'document', id: good.actorId }, other)) as DocumentState).status).to.equal('indexed');
  });

  it('a deleted document leaves the owner\'s search', async function () {
    const reader = `reader-${randomUUID()}`;
    const note = ingestMessage(reader, { name: 'okafor.md', bytes: Buffer.from('# June Okafor\n\nJune Okafor plays point guard for the Riverside Rays.') });
    const post = async (type: string, payload: unknown) => client.reply((await client.send({ actor: { kind: 'document', id: note.actorId }, ownerId: reader, type, payload })).replyStream, { idleTimeoutMs: 30_000 });
    await post('ingest', note.payload);
    const before = await start('Scouting report for June Okafor', reader);
    expect(named(await approvePlan(before.runId, reader), 'coverage_report')[0]!.chunk_count).to.be.greaterThan(0);
    expect(named(await post('delete', {}), 'reply')[0]).to.include({ deleted: true });
    expect(((await client.state({ kind: 'document', id: note.actorId }, reader)) as DocumentState).status).to.equal('deleted');
    const after = await start('Scouting report for June Okafor', reader);
    const researched = await approvePlan(after.runId, reader);
    expect(named(researched, 'coverage_report')[0]).to.include({ chunk_count: 0 });
    expect(named(researched, 'warning').map((w) => w.message)).to.include(NO_DOCUMENTS_WARNING);
  });

  it('approve at both gates: plan_proposal, then coverage_report and player_preview, then one player and one report saved together', async function () {
    const { runId, events } = await start('Generate a scouting report for Marcus Ellery');
    const proposal = named(events, 'plan_proposal')[0]!;
    expect(proposal).to.include({ player_name: 'Marcus Ellery', sport_guess: 'nba' });
    expect((proposal.plan_steps as string[]).length).to.be.within(4, 7);
    expect(answered(events).status).to.equal('awaiting_plan_approval');
    expect(named(events, 'progress').map((p) => p.trace)).to.include.members(['scouting_workflow_start', 'plan_generated']);

    const researched = await approvePlan(runId);
    const coverage = named(researched, 'coverage_report')[0]!;
    expect(coverage.confidence).to.be.oneOf(['med', 'high']);
    expect(coverage.chunk_count).to.be.within(1, 40);
    const preview = named(researched, 'player_preview')[0]!;
    expect(preview.player_fields).to.deep.include({ display_name: 'Marcus Ellery', sport: 'nba' });
    expect((preview.report_summary as string[]).length).to.be.within(5, 8);
    for (const title of sectionTitles) expect(preview.report_text as string).to.include(title);
    expect(answered(researched).status).to.equal('awaiting_player_approval');

    const saved = answered(await decide(runId, 'approve'));
    expect(saved.status).to.equal('completed');
    expect(saved.result).to.include({ saved: true, outcome: 'saved' });
    const { players, reports } = scoutingModels(conn);
    const player = await players.findOne({ run_id: runId }).lean();
    const report = await reports.findOne({ run_id: runId }).lean();
    expect(player?.latest_report_id).to.equal(report?._id);
    expect(report?.player_id).to.equal(player?._id);
    expect(saved.result!.player_record_id).to.equal(player?._id);
    expect(report?.report_text).to.equal(saved.result!.scouting_report);
    expect(await players.countDocuments({ run_id: runId })).to.equal(1);
  });

  it('reject at gate B returns the report and saves nothing', async function () {
    const { runId } = await start('Scout Caleb Drummond strengths and weaknesses');
    await approvePlan(runId);
    const view = answered(await decide(runId, 'reject'));
    expect(view.result).to.include({ saved: false, outcome: 'rejected', player_record_id: null, report_id: null });
    expect(view.result!.scouting_report).to.be.a('string').and.include('Caleb Drummond');
    expect(await scoutingModels(conn).players.countDocuments({ run_id: runId })).to.equal(0);
  });

  it('edit_wording re-runs composition only, with the feedback; the loop is capped', async function () {
    const { runId } = await start('player profile of Marcus Ellery');
    await approvePlan(runId);
    const edited = await decide(runId, 'edit_wording', 'make it shorter');
    const steps = named(edited, 'progress').map((p) => p.step);
    expect(steps).to.include('compose').and.not.include('retrieve');
    expect(named(edited, 'coverage_report')).to.deep.equal([]);
    expect(named(edited, 'player_preview')[0]).to.include({ edit_loops: 1 });
    await decide(runId, 'edit_wording', 'more detail');
    await decide(runId, 'edit_wording', 'shorter again');
    const refused = await decide(runId, 'edit_wording', 'once more');
    expect(failure(refused)?.code).to.equal('conflict');
    expect(((await client.state({ kind: 'scouting', id: runId }, owner)) as { status: string; edit_loops: number }).edit_loops).to.equal(3);
    expect(answered(await decide(runId, 'approve')).result).to.include({ saved: true });
  });

  it('edit_content searches again from the queries with the feedback', async function () {
    const { runId } = await start('Generate a scouting report for Caleb Drummond');
    await approvePlan(runId);
    const edited = await decide(runId, 'edit_content', 'look for injury history and durability');
    const steps = named(edited, 'progress').map((p) => p.step);
    expect(steps).to.include.members(['queries', 'retrieve', 'extract', 'compose']);
    const queries = named(edited, 'progress').find((p) => p.step === 'queries')!;
    expect(queries.query_count).to.be.within(3, 6);
    expect(named(edited, 'coverage_report')).to.have.length(1);
    expect(answered(edited).status).to.equal('awaiting_player_approval');
  });

  it('low confidence: a warning and the missing fields listed, and the run can still be approved', async function () {
    const { runId } = await start('Generate a scouting report for Tobias McKinnon');
    const researched = await approvePlan(runId);
    expect(named(researched, 'coverage_report')[0]).to.include({ confidence: 'low' });
    expect(named(researched, 'warning').map((w) => w.message)).to.include(LOW_CONFIDENCE_WARNING);
    const preview = named(researched, 'player_preview')[0]!;
    expect(preview.report_text as string).to.include("What I Couldn't Find");
    expect(answered(await decide(runId, 'approve')).result).to.include({ saved: true });
  });

  it('no documents: a warning, and a report that says what it could not find', async function () {
    const lonely = `empty-${randomUUID()}`;
    const run = await start('Generate a scouting report for Marcus Ellery', lonely);
    const researched = await approvePlan(run.runId, lonely);
    expect(named(researched, 'warning').map((w) => w.message)).to.include(NO_DOCUMENTS_WARNING);
    expect(named(researched, 'coverage_report')[0]).to.include({ chunk_count: 0, confidence: 'low' });
  });

  it('asks which player when the request names none, and goes on with the answer', async function () {
    const { runId, events } = await start('Create a player analysis');
    expect(named(events, 'clarification')[0]!.message).to.match(/couldn't identify the player name/i);
    expect(answered(events).status).to.equal('awaiting_clarification');
    const resumed = await send(owner, runId, 'resume', { type: 'clarification', player_name: 'Rafael de la Torre' });
    expect(named(resumed, 'plan_proposal')[0]).to.include({ player_name: 'Rafael de la Torre' });
  });

  it('uses an edited plan and hints: the hints become queries', async function () {
    const { runId } = await start('Scout Rafael de la Torre');
    const researched = await send(owner, runId, 'resume', { type: 'plan_approval', approved: true, plan_steps: ['Read the receiver profile', 'Report'], query_hints: ['route running'] });
    const view = answered(researched);
    expect(view.plan_steps).to.deep.equal(['Read the receiver profile', 'Report']);
    expect(view.query_hints).to.deep.equal(['route running']);
    const pdfCited = (named(researched, 'player_preview')[0]!.report_text as string).includes('.pdf');
    expect(pdfCited, 'the PDF profile is a cited source').to.equal(true);
  });

  it('a declined plan ends the run without research', async function () {
    const { runId } = await start('Scout Theo Vance');
    const view = answered(await send(owner, runId, 'resume', { type: 'plan_approval', approved: false }));
    expect(view.status).to.equal('completed');
    expect(view.result).to.include({ outcome: 'plan_declined', saved: false });
  });

  it('refuses what does not fit the gate, and changes nothing', async function () {
    const { runId } = await start('Scout Marcus Ellery');
    expect(failure(await decide(runId, 'approve'))?.code).to.equal('conflict');
    // Over the spec's input limits: refused before anything is queued.
    const refusal = (payload: Structured) => send(owner, runId, 'resume', payload).then(() => 'sent', (e: { code?: string }) => e.code);
    expect(await refusal({ type: 'plan_approval', approved: true, query_hints: Array.from({ length: 11 }, (_, i) => `hint ${i}`) })).to.equal('bad_request');
    expect(await refusal({ type: 'plan_approval', approved: true, plan_steps: ['x'.repeat(501)] })).to.equal('bad_request');
    expect(await refusal({ type: 'player_approval', action: 'edit_content', feedback: 'x'.repeat(1001) })).to.equal('bad_request');
    expect(await refusal({ type: 'clarification', player_name: 'x'.repeat(201) })).to.equal('bad_request');
    const intruder = await send(`intruder-${randomUUID()}`, runId, 'resume', { type: 'plan_approval', approved: true }).then(() => 'sent', (e: { code?: string }) => e.code);
    expect(intruder).to.equal('not_found');
    expect(((await client.state({ kind: 'scouting', id: runId }, owner)) as { status: string }).status).to.equal('awaiting_plan_approval');
    expect(answered(await approvePlan(runId)).status).to.equal('awaiting_player_approval');
  });

  it('resumes a run paused by other workers (a restart of every process in between)', async function () {
    const { runId } = await start('Generate a scouting report for Caleb Drummond');
    await approvePlan(runId);
    await workers.close();
    // New workers on a new connection: nothing of the paused run is left in memory.
    restarted = await mongoose.createConnection(mongo.uri, { dbName: 'scouting_runs' }).asPromise();
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: restarted, kinds, logger: silent, names });
    const view = answered(await decide(runId, 'approve'));
    expect(view.result).to.include({ saved: true });
    expect(await scoutingModels(conn).reports.countDocuments({ run_id: runId })).to.equal(1);
  });
});
