/**
 * A scouting run with a language model: the real ChatOpenAI against a scripted OpenAI-compatible
 * server. Extraction is structured output checked by zod (a fact citing no retrieved chunk is
 * dropped), composition is the model's prose in the template's sections; the spec's retry policy
 * retries a failing call, and a call that keeps failing ends the turn with the spec's message while
 * the run stays at its gate, so the same answer can be sent again. Also: the gate timeout.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { ingestMessage } from '../../actors/documents/contract.js';
import { documentKind, documentListKind, searchIndexKind } from '../../actors/documents/kind.js';
import { embedderFor, type Embedder } from '../../actors/documents/embeddings.js';
import type { DocumentState } from '../../actors/documents/state.js';
import { createChatModel } from '../../actors/llm/chat-model.js';
import { ActorClient } from '../../actors/runtime/client.js';
import type { AnyKind } from '../../actors/runtime/contract.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { sectionTitles } from '../../actors/scouting/composition.js';
import { scoutingKind, scoutingRecordsKind } from '../../actors/scouting/kind.js';
import type { RunView } from '../../actors/scouting/state.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { scoutingCorpus } from '../../models/scouting-corpus.js';
import { RedisNames } from '../../queues/keys.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest, type ScriptedReply } from '../support/fake-openai-server.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const kinds = [documentKind, documentListKind, searchIndexKind, scoutingKind, scoutingRecordsKind] as AnyKind[];
type Structured = Record<string, unknown>;

/** The chunk ids the extraction prompt shows the model. */
const chunkIdsIn = (req: RecordedRequest): string[] => [...JSON.stringify(req.messages).matchAll(/\[chunk_id: ([^\]]+)\]/g)].map((m) => m[1]!);
const isExtraction = (req: RecordedRequest) => JSON.stringify(req.messages).includes('You extract scouting facts');

describe('scouting runs with a language model (ChatOpenAI against a scripted OpenAI-compatible server)', function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  let model: FakeOpenAiServer;
  const prefix = `test-scouting-model-${process.pid}-${Date.now().toString(36)}`;
  const names = new RedisNames(prefix);
  const owner = `scout-${randomUUID()}`;

  /** What the scripted model answers: structured extraction (as a tool call or JSON), else report prose. */
  function extraction(req: RecordedRequest, facts: Array<{ chunk_id: string; text: string }>): ScriptedReply {
    const args = {
      raw_facts: facts.map((f) => ({ ...f, field: 'strengths' })),
      player_fields: { display_name: 'Marcus Ellery', sport: 'nba', positions: ['SG'], scouting: { strengths: ['Catch-and-shoot threes'] } },
    };
    const tool = req.tools?.[0]?.function?.name as string | undefined;
    return tool ? { toolCalls: [{ name: tool, args }] } : { text: JSON.stringify(args) };
  }
  const prose = (): ScriptedReply => ({ text: ['# Scouting report: Marcus Ellery', ...sectionTitles.filter((t) => t !== 'Risk Notes').map((t) => `## ${t}\n\nModel prose for ${t} [1].`)].join('\n\n') });

  async function send(runId: string, type: string, payload: Structured): Promise<ReplyEvent[]> {
    const sent = await client.send({ actor: { kind: 'scouting', id: runId }, ownerId: owner, type, payload });
    return client.reply(sent.replyStream, { idleTimeoutMs: 30_000 });
  }
  const replyOf = (events: ReplyEvent[]) => events.find((e) => e.event === 'reply')?.data as RunView | undefined;
  const errorOf = (events: ReplyEvent[]) => events.find((e) => e.event === 'error')?.data as { code: string; message: string } | undefined;

  async function startWith(gateTimeoutMs: number | null, embedder: Embedder | null = null) {
    await workers?.close();
    workers = await startWorkers({
      embedder,
      redisUrl: REDIS_URL,
      mongo: conn,
      kinds,
      logger: silent,
      names,
      chatModel: await createChatModel({ provider: 'openai-compatible', baseUrl: model.url, apiKey: 'test', model: 'fake-model', temperature: 0, timeoutMs: 10_000 }),
      gateTimeoutMs,
    });
  }

  before(async function () {
    model = await startFakeOpenAiServer();
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'scouting_model' }).asPromise();
    client = new ActorClient(REDIS_URL, conn, kinds, names);
    await startWith(null);
    const messages = scoutingCorpus().map((d) => ingestMessage(owner, d));
    const batchId = await client.sendBatch(owner, 'document', messages.map((m) => ({ actor: { kind: 'document', id: m.actorId }, type: m.type, payload: m.payload })));
    for await (const event of client.followBatch(batchId, { idleTimeoutMs: 30_000 })) if (event.event === 'done') break;
  });

  after(async function () {
    await workers?.close();
    await client?.close();
    await conn?.close();
    await mongo?.stop();
    await model?.close();
    await deleteRedisPrefix(prefix);
  });

  it('extracts with structured output (a fact citing no retrieved chunk is dropped) and composes with the model in the template', async function () {
    model.respondWith((req) => {
      if (!isExtraction(req)) return prose();
      const [real] = chunkIdsIn(req);
      return extraction(req, [
        { chunk_id: real!, text: 'Ellery shoots well off the catch.' },
        { chunk_id: 'made-up#3', text: 'Ellery once scored 90 points.' },
      ]);
    });
    const runId = randomUUID();
    await send(runId, 'start', { request: 'Scouting report for Marcus Ellery' });
    const researched = await send(runId, 'resume', { type: 'plan_approval', approved: true });
    expect(errorOf(researched), JSON.stringify(researched)).to.equal(undefined);
    const preview = researched.find((e) => e.event === 'player_preview')!.data as Structured;
    expect(preview.player_fields).to.deep.include({ display_name: 'Marcus Ellery', sport: 'nba', positions: ['SG'] });
    const report = preview.report_text as string;
    expect(report).to.include('Model prose for Strengths [1].');
    for (const title of sectionTitles.filter((t) => t !== 'Risk Notes')) expect(report).to.include(`## ${title}`);
    expect(report).to.include('## Sources');
    const extractionRequest = model.requests.find(isExtraction)!;
    expect(JSON.stringify(extractionRequest.messages)).to.include('Marcus Ellery');
    expect(JSON.stringify(researched)).to.not.include('90 points');
  });

  // Both runs go at once: each waits out the policy's backoff (1 s, then 2 s).
  it('retries a failing model call (the spec\'s policy) and goes on; after three failures, the spec\'s message, the run still at its gate, and the same answer works again', async function () {
    const calls = { ellery: 0, drummond: 0 };
    let drummondFails = true;
    model.respondWith((req) => {
      if (!isExtraction(req)) return prose();
      if (JSON.stringify(req.messages).includes('Player: Caleb Drummond')) {
        calls.drummond += 1;
        return drummondFails ? { status: 400, error: 'scripted failure' } : extraction(req, []);
      }
      calls.ellery += 1;
      return calls.ellery < 3 ? { status: 400, error: 'scripted failure' } : extraction(req, []);
    });
    const recovering = randomUUID();
    const failing = randomUUID();
    await Promise.all([send(recovering, 'start', { request: 'Scouting report for Marcus Ellery' }), send(failing, 'start', { request: 'Scouting report for Caleb Drummond' })]);
    const [recovered, failed] = await Promise.all([send(recovering, 'resume', { type: 'plan_approval', approved: true }), send(failing, 'resume', { type: 'plan_approval', approved: true })]);

    expect(errorOf(recovered), JSON.stringify(errorOf(recovered))).to.equal(undefined);
    expect(calls.ellery).to.equal(3);
    expect(replyOf(recovered)?.status).to.equal('awaiting_player_approval');
    const retries = recovered.filter((e) => e.event === 'progress' && String((e.data as Structured).message).includes('failed'));
    expect(retries, 'each failure is shown before the retry').to.have.length(2);

    expect(calls.drummond).to.equal(3);
    expect(errorOf(failed)?.code).to.equal('unavailable');
    expect(errorOf(failed)?.message).to.include('Report generation timed out. Please try again.');
    expect(((await client.state({ kind: 'scouting', id: failing }, owner)) as { status: string }).status).to.equal('awaiting_plan_approval');
    drummondFails = false;
    expect(replyOf(await send(failing, 'resume', { type: 'plan_approval', approved: true }))?.status).to.equal('awaiting_player_approval');
  });

  it('expires a run left at a gate past SCOUTING_GATE_TIMEOUT_SECONDS: it answers no more resumes', async function () {
    model.respondWith((req) => (isExtraction(req) ? extraction(req, []) : prose()));
    await startWith(300);
    const runId = randomUUID();
    const started = await send(runId, 'start', { request: 'Scouting report for Marcus Ellery' });
    expect(replyOf(started)?.status).to.equal('awaiting_plan_approval');
    const feed = client.followFeed({ kind: 'scouting', id: runId }, owner, { lastEventId: '0-0' });
    for await (const entry of feed) if (entry.event === 'run') break;
    const expired = (await client.state({ kind: 'scouting', id: runId }, owner)) as { status: string; checkpoint: unknown };
    expect(expired).to.include({ status: 'expired', checkpoint: null });
    expect(errorOf(await send(runId, 'resume', { type: 'plan_approval', approved: true }))?.code).to.equal('conflict');
    await startWith(null);
  });

  it('an embeddings provider that fails: documents are kept without vectors, and the run searches by keyword and says so', async function () {
    model.respondWith((req) => (isExtraction(req) ? extraction(req, []) : prose()));
    // The scripted server has no embeddings endpoint: the real OpenAIEmbeddings client gets a 404.
    await startWith(null, embedderFor({ provider: 'openai-compatible', baseUrl: model.url, model: 'fake-embeddings' }));
    const reader = `reader-${randomUUID()}`;
    const note = ingestMessage(reader, { name: 'okafor.md', bytes: Buffer.from('# June Okafor\n\nJune Okafor plays point guard for the Riverside Rays. Okafor excels at pick-and-roll passing.') });
    const uploaded = await client.send({ actor: { kind: 'document', id: note.actorId }, ownerId: reader, type: note.type, payload: note.payload });
    await client.reply(uploaded.replyStream, { idleTimeoutMs: 30_000 });
    const document = (await client.state({ kind: 'document', id: note.actorId }, reader)) as DocumentState;
    expect(document).to.include({ status: 'indexed', embedded: false });
    expect(document.embedding_error).to.be.a('string');
    const runId = randomUUID();
    const started = await client.send({ actor: { kind: 'scouting', id: runId }, ownerId: reader, type: 'start', payload: { request: 'Scouting report for June Okafor' } });
    await client.reply(started.replyStream, { idleTimeoutMs: 30_000 });
    const approved = await client.send({ actor: { kind: 'scouting', id: runId }, ownerId: reader, type: 'resume', payload: { type: 'plan_approval', approved: true } });
    const events = await client.reply(approved.replyStream, { idleTimeoutMs: 30_000 });
    const warnings = events.filter((e) => e.event === 'warning').map((e) => (e.data as { message: string }).message);
    expect(warnings.some((w) => w.startsWith('Search fell back to keywords (BM25)')), JSON.stringify(warnings)).to.equal(true);
    expect(replyOf(events)?.status).to.equal('awaiting_player_approval');
    await startWith(null);
  });
});
