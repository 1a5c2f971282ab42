/**
 * `npm run bench:scouting`: the scouting figures of issue 11, on a troupe as operators run it (troupe
 * mongo, one worker, one gateway), offline:
 *   - indexing: the shipped corpus replicated to N documents (default 1,000), uploaded over POST
 *     /documents as batch jobs and indexed by the worker — chunks/s, beside the same documents ingested
 *     in this process with no queue (the baseline);
 *   - retrieval: p50/p95 of one query and of a run's whole retrieval step over that owner's index,
 *     beside the same over the shipped corpus alone (8 documents);
 *   - one run end to end over HTTP/SSE (start, approve the plan, approve the player), the time spent
 *     in the three requests only — not waiting at the gates.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import mongoose from 'mongoose';
import { ingestDocument } from '../../actors/documents/ingest.js';
import { Retriever } from '../../actors/documents/retriever.js';
import { mergeEvidence } from '../../actors/scouting/evidence.js';
import { buildQueries } from '../../actors/scouting/queries.js';
import type { Sport } from '../../actors/scouting/schemas.js';
import { UserDirectory } from '../../gateway/users.js';
import { scoutingCorpus, type CorpusDocument } from '../../models/scouting-corpus.js';
import type { Logger } from '../../logging/logger.js';
import { postEventStream } from './event-stream-request.js';
import { latencySummary, percentile, startBenchTroupe } from './troupe-processes.js';

export interface ScoutingBenchOptions {
  redisUrl: string;
  logger: Logger;
  documents?: number;
  runs?: number;
}

const UPLOAD_FILES_PER_REQUEST = 20;
const QUERY_SAMPLES = 200;
const STEP_SAMPLES = 50;
const RETRIEVAL_P95_BOUND_MS = 50;
const RUN_BOUND_MS = 2000;

const round = (n: number) => Math.round(n * 10) / 10;
const stats = (samples: number[]) => latencySummary(samples) as { p50_ms: number; p95_ms: number; max_ms: number };

/**
 * Copy `i` of a corpus document, about other (invented) players: each surname gets the copy's number,
 * so the index holds many players as a real library would, not one passage a thousand times. The PDF
 * is copied as is, with a comment after %%EOF so that its hash differs.
 */
function copyOf(document: CorpusDocument, i: number): { name: string; contentType: string; bytes: Buffer } {
  const name = document.name.replace(/(\.[a-z]+)$/, `-copy${i}$1`);
  if (document.contentType === 'application/pdf') return { name, contentType: document.contentType, bytes: Buffer.concat([document.bytes, Buffer.from(`\n% copy ${i}\n`)]) };
  let text = document.bytes.toString('utf8');
  for (const player of document.players) {
    const surname = player.split(' ').at(-1)!;
    text = text.replaceAll(surname, `${surname}${i}`).replaceAll(surname.toUpperCase(), `${surname.toUpperCase()}${i}`);
  }
  return { name, contentType: document.contentType, bytes: Buffer.from(`${text}\n\nFiled copy ${i}.\n`) };
}

async function postJson(base: string, key: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 202 && response.status !== 200) throw new Error(`POST ${path}: HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Uploads documents 20 a request and waits for every batch to finish; throws if a file failed. */
async function upload(base: string, key: string, files: Array<{ name: string; contentType: string; bytes: Buffer }>): Promise<void> {
  const batches: string[] = [];
  for (let i = 0; i < files.length; i += UPLOAD_FILES_PER_REQUEST) {
    const documents = files.slice(i, i + UPLOAD_FILES_PER_REQUEST).map((f) => ({ name: f.name, content_type: f.contentType, base64: f.bytes.toString('base64') }));
    batches.push((await postJson(base, key, '/documents', { documents })).batchId as string);
  }
  for (const batchId of batches) {
    // The batch's SSE ends with `done` once every file in it has finished.
    const response = await fetch(`${base}/batches/${batchId}/events`, { headers: { authorization: `Bearer ${key}` } });
    const text = await response.text();
    const last = /event: done\n(?:id: [^\n]*\n)?data: (.*)\n/.exec(text)?.[1];
    const progress = last ? (JSON.parse(last) as { failed: number }) : undefined;
    if (!progress) throw new Error(`batch ${batchId} did not finish: ${text.slice(-300)}`);
    if (progress.failed > 0) throw new Error(`batch ${batchId}: ${progress.failed} documents failed`);
  }
}

async function timeRetrieval(retriever: Retriever, ownerId: string, players: Array<{ name: string; sport: Sport }>) {
  const queries = players.flatMap((p) => buildQueries({ player_name: p.name, sport: p.sport, query_hints: [] }));
  const cold = performance.now();
  await retriever.search(ownerId, [queries[0]!]);
  const coldMs = performance.now() - cold;
  const single: number[] = [];
  for (let i = 0; i < QUERY_SAMPLES; i += 1) {
    const started = performance.now();
    await retriever.search(ownerId, [queries[i % queries.length]!]);
    single.push(performance.now() - started);
  }
  const step: number[] = [];
  let chunks = 0;
  for (let i = 0; i < STEP_SAMPLES; i += 1) {
    const player = players[i % players.length]!;
    const started = performance.now();
    const found = await retriever.search(ownerId, buildQueries({ player_name: player.name, sport: player.sport, query_hints: [] }));
    chunks = mergeEvidence(found.results).length;
    step.push(performance.now() - started);
  }
  return { first_search_ms: round(coldMs), query: stats(single), retrieval_step: { ...stats(step), queries_per_step: queries.length / players.length, chunks_kept: chunks } };
}

/** One run over HTTP/SSE: the three requests' durations (not the time between them). */
async function timeRun(agent: Agent, base: string, key: string, player: string): Promise<{ total_ms: number; start_ms: number; plan_ms: number; player_ms: number; work_ms: number }> {
  let runId = '';
  let workMs = 0;
  const post = async (path: string, body: unknown) => {
    const started = performance.now();
    await postEventStream(agent, new URL(path, base), key, JSON.stringify(body), (e) => {
      if (e.event === 'metadata') runId ||= (JSON.parse(e.data) as { run_id: string }).run_id;
      if (e.event === 'run') workMs = (JSON.parse(e.data) as { work_ms: number }).work_ms;
    });
    return performance.now() - started;
  };
  const start = await post('/scouting/runs', { request: `Scouting report for ${player}` });
  const plan = await post(`/scouting/runs/${runId}/resume`, { type: 'plan_approval', approved: true });
  const save = await post(`/scouting/runs/${runId}/resume`, { type: 'player_approval', action: 'approve' });
  return { total_ms: start + plan + save, start_ms: start, plan_ms: plan, player_ms: save, work_ms: workMs };
}

export async function runScoutingBench({ redisUrl, logger, documents = 1000, runs = 10 }: ScoutingBenchOptions) {
  const troupe = await startBenchTroupe({ redisUrl, name: 'scouting', kindLimits: 'document:rate=none,concurrent=none;scouting:rate=none,concurrent=none' });
  const connection = await mongoose.createConnection(troupe.mongo.uri, { dbName: troupe.mongo.dbName }).asPromise();
  const agent = new Agent({ keepAlive: true });
  try {
    const users = await UserDirectory.open(connection);
    const big = (await users.listUsers()).find((u) => u.name === `bench-${process.pid}`)!;
    const small = await users.createUser(`bench-small-${process.pid}`);
    const corpus = scoutingCorpus();
    const players = [...new Map(corpus.flatMap((d) => d.players.map((name) => [name, { name, sport: d.sports[0] as Sport }]))).values()];

    logger.info({ documents: corpus.length }, 'uploading the shipped corpus for the small owner');
    await upload(troupe.base, small.key, corpus);

    const replicated = Array.from({ length: documents }, (_, i) => copyOf(corpus[i % corpus.length]!, i));
    logger.info({ documents }, 'indexing the replicated corpus through the runtime');
    const uploadStarted = performance.now();
    await upload(troupe.base, troupe.key, replicated);
    const uploadSeconds = (performance.now() - uploadStarted) / 1000;
    const chunks = await connection.db!.collection('document_chunks').countDocuments({ ownerId: big.id });

    logger.info({ documents }, 'indexing the same documents in this process (baseline)');
    const directOwner = `bench-direct-${randomUUID()}`;
    const directStarted = performance.now();
    let directChunks = 0;
    for (const [i, file] of replicated.entries()) {
      const done = await ingestDocument(connection, { ownerId: directOwner, documentId: `direct-${i}`, name: file.name, contentType: file.contentType, bytes: new Uint8Array(file.bytes) });
      directChunks += done.chunkCount;
    }
    const directSeconds = (performance.now() - directStarted) / 1000;

    logger.info('timing retrieval');
    const retriever = new Retriever(connection);
    const atScale = await timeRetrieval(retriever, big.id, players);
    const atShipped = await timeRetrieval(retriever, small.user.id, players);

    logger.info({ runs }, 'timing runs');
    await timeRun(agent, troupe.base, small.key, players[0]!.name);
    type TimedRun = Awaited<ReturnType<typeof timeRun>>;
    const shippedRuns: TimedRun[] = [];
    for (let i = 0; i < runs; i += 1) shippedRuns.push(await timeRun(agent, troupe.base, small.key, players[i % players.length]!.name));
    const scaleRuns: TimedRun[] = [];
    for (let i = 0; i < Math.max(1, Math.floor(runs / 2)); i += 1) scaleRuns.push(await timeRun(agent, troupe.base, troupe.key, players[i % players.length]!.name));
    const runStats = (list: TimedRun[]) => ({ ...stats(list.map((r) => r.total_ms)), worker_ms_p50: round(percentile(list.map((r) => r.work_ms).sort((a, b) => a - b), 50)), runs: list.length });

    const result = {
      node: process.version,
      setup: { processes: 'troupe mongo (embedded, memory) + 1 troupe worker + 1 troupe gateway', llm: 'offline', embeddings: 'none (BM25)' },
      indexing: {
        documents,
        chunks,
        through_runtime: { seconds: round(uploadSeconds), documents_per_sec: round(documents / uploadSeconds), chunks_per_sec: round(chunks / uploadSeconds), path: 'POST /documents (20 files a request) → batch job → document actors in one worker' },
        baseline_in_process: { seconds: round(directSeconds), chunks_per_sec: round(directChunks / directSeconds), path: 'ingestDocument in a loop, no queue' },
        ratio_runtime_vs_in_process: Math.round((chunks / uploadSeconds / (directChunks / directSeconds)) * 100) / 100,
      },
      retrieval: { at_documents: { documents, chunks, ...atScale }, baseline_at_shipped_corpus: { documents: corpus.length, ...atShipped } },
      run_end_to_end: {
        excludes: 'the time waiting at the two gates; counts the three HTTP/SSE requests (start, approve plan, approve player)',
        shipped_corpus: runStats(shippedRuns),
        [`at_${documents}_documents`]: runStats(scaleRuns),
      },
      acceptance: {
        retrieval_p95_under_50ms: atScale.query.p95_ms < RETRIEVAL_P95_BOUND_MS,
        retrieval_step_p95_under_50ms: atScale.retrieval_step.p95_ms < RETRIEVAL_P95_BOUND_MS,
        offline_run_under_2s: runStats(shippedRuns).p95_ms < RUN_BOUND_MS,
      },
    };
    return result;
  } finally {
    agent.destroy();
    await connection.close();
    await troupe.stop();
  }
}
