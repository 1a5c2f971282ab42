/**
 * Scouting end to end on a running troupe (`troupe mongo` + `troupe gateway` + `troupe worker`,
 * offline): documents uploaded over HTTP (multipart with the PDF, and JSON), their status and feed,
 * a run driven over SSE through both gates, the saved player and report, the limits, ownership and
 * refusals; then the same over MCP with the official SDK client (documents_upload, scouting_start,
 * scouting_resume, scouting_status, players_search); and `troupe seed scouting`.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { scoutingCorpus } from '../../models/scouting-corpus.js';
import { callToolWithProgress } from '../support/mcp-progress.js';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, runTroupe, startTroupeMongo, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

type Structured = Record<string, unknown>;
interface SseEvent {
  event: string;
  id: string;
  data: Structured;
}

describe('scouting on a running troupe (HTTP, SSE and MCP, offline)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const redisPrefix = `test-scouting-${process.pid}-${Date.now().toString(36)}`;
  let env: NodeJS.ProcessEnv;
  let base = '';
  let key = '';
  let otherKey = '';
  let mcp: Client;
  const corpus = scoutingCorpus();

  const request = (method: string, path: string, options: { apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.apiKey ?? key}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  const json = async (response: Response, status: number): Promise<Structured> => {
    const text = await response.text();
    expect(response.status, text).to.equal(status);
    return JSON.parse(text) as Structured;
  };

  /** A POST answered as SSE, read to its end. */
  async function stream(path: string, body: Structured, apiKey = key): Promise<SseEvent[]> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    const raw = await response.text();
    expect(response.status, raw).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events: SseEvent[] = [];
    createParser({ onEvent: (m: EventSourceMessage) => events.push({ event: m.event ?? 'message', id: m.id!, data: JSON.parse(m.data) as Structured }) }).feed(raw);
    expect(events.filter((e) => e.event === 'error'), raw).to.deep.equal([]);
    expect(events.at(-1)?.event).to.equal('done');
    expect(events.at(-2)?.event).to.equal('run');
    expect(events.every((e) => e.id)).to.equal(true);
    return events;
  }
  const named = (events: SseEvent[], name: string) => events.filter((e) => e.event === name).map((e) => e.data);

  const tool = async (name: string, args: Structured): Promise<CallToolResult> => (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'scouting_e2e',
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      LLM_PROVIDER: 'offline',
      LARGE_LANGUAGE_MODEL: '',
      EMBEDDINGS_PROVIDER: 'none',
      // Room for the tests below; the limits themselves are checked with a low one.
      KIND_LIMITS: 'scouting:rate=40/3600,concurrent=3',
    });
    await startTroupeMongo(mongoPort, env, processes);
    key = await createUserKey('scout', env);
    otherKey = await createUserKey('rival-scout', env);
    await startWorkerAndGateway(env, base, processes);
    mcp = new Client({ name: 'scouting-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });

  after(async function () {
    await mcp?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('POST /documents takes multipart files (the PDF among them) and JSON, answers 202 with ids, and indexes them as a batch job', async function () {
    const form = new FormData();
    for (const d of corpus.filter((d) => d.name !== 'marcus-ellery-season-notes.txt')) form.append('files', new Blob([new Uint8Array(d.bytes)], { type: d.contentType }), d.name);
    const uploaded = await json(await fetch(`${base}/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form }), 202);
    const notes = corpus.find((d) => d.name === 'marcus-ellery-season-notes.txt')!;
    const viaJson = await json(await request('POST', '/documents', { body: { name: notes.name, text: notes.bytes.toString('utf8') } }), 202);
    const documents = [...(uploaded.documents as Structured[]), ...(viaJson.documents as Structured[])];
    expect(documents).to.have.length(corpus.length);
    // The batch's progress as SSE, to its end.
    const progress = await fetch(`${base}${uploaded.events as string}`, { headers: { authorization: `Bearer ${key}` } });
    const raw = await progress.text();
    expect(raw).to.include('event: done');
    for (const d of documents) {
      const state = await pollUntil(
        async () => {
          const view = await json(await request('GET', d.status as string), 200);
          return view.status === 'queued' ? undefined : view;
        },
        { timeoutMs: 30_000, what: `${d.name as string} indexed` },
      );
      expect(state, JSON.stringify(state)).to.include({ status: 'indexed' });
      expect(state.chunk_count).to.be.greaterThan(0);
      if ((d.name as string).endsWith('.pdf')) expect(state).to.include({ format: 'pdf', pages: 2 });
    }
    const list = await json(await request('GET', '/documents'), 200);
    expect((list.documents as Structured[]).map((d) => d.name)).to.have.members(corpus.map((d) => d.name));
    expect((await json(await request('GET', '/documents', { apiKey: otherKey }), 200)).documents).to.deep.equal([]);
    expect((await request('GET', documents[0]!.status as string, { apiKey: otherKey })).status).to.equal(404);
  });

  it('refuses what it cannot take: an unreadable file is kept as failed with the reason; bad uploads answer 4xx', async function () {
    const uploaded = await json(await request('POST', '/documents', { body: { name: 'scan.pdf', base64: Buffer.from('%PDF-1.7 nothing here').toString('base64') } }), 202);
    const [doc] = uploaded.documents as Structured[];
    const feed = await (await fetch(`${base}${doc!.events as string}`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect(feed).to.include('"status":"failed"');
    const view = await json(await request('GET', doc!.status as string), 200);
    expect(view.status).to.equal('failed');
    expect(view.reason).to.match(/pdf/i);
    expect((await json(await request('POST', '/documents', { body: { name: 'x.md' } }), 400)).error).to.have.property('code', 'bad_request');
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(20 * 1024 * 1024 + 1)]), 'huge.txt');
    const huge = await fetch(`${base}/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(huge.status).to.equal(413);
    expect((await fetch(`${base}/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body: 'hello' })).status).to.equal(415);
  });

  let savedPlayer = '';
  let savedReport = '';

  it('a run over SSE: plan_proposal, approve, coverage_report and player_preview, approve, saved; status, players and reports read back', async function () {
    const started = await stream('/scouting/runs', { request: 'Generate a scouting report for Marcus Ellery' });
    const runId = named(started, 'metadata')[0]!.run_id as string;
    expect(named(started, 'plan_proposal')[0]).to.include({ player_name: 'Marcus Ellery', sport_guess: 'nba' });
    expect(named(started, 'progress').length).to.be.greaterThan(0);
    const waiting = await json(await request('GET', `/scouting/runs/${runId}`), 200);
    expect(waiting.status).to.equal('awaiting_plan_approval');
    expect(waiting.pending_gate).to.include({ gate: 'plan_approval' });

    const researched = await stream(`/scouting/runs/${runId}/resume`, { type: 'plan_approval', approved: true, query_hints: ['court vision'] });
    expect(named(researched, 'coverage_report')[0]!.confidence).to.be.oneOf(['med', 'high']);
    const preview = named(researched, 'player_preview')[0]!;
    expect(preview.player_fields).to.deep.include({ display_name: 'Marcus Ellery', sport: 'nba' });

    const done = await stream(`/scouting/runs/${runId}/resume`, { type: 'player_approval', action: 'approve' });
    const result = named(done, 'run')[0]!.result as Structured;
    expect(result).to.include({ saved: true, outcome: 'saved' });
    savedPlayer = result.player_record_id as string;
    savedReport = result.report_id as string;

    const player = await json(await request('GET', `/players/${savedPlayer}`), 200);
    expect((player.player as Structured).display_name).to.equal('Marcus Ellery');
    expect((player.latest_report as Structured)._id).to.equal(savedReport);
    const report = await json(await request('GET', `/reports/${savedReport}`), 200);
    expect((report.report as Structured).report_text).to.equal(result.scouting_report);
    expect(((await json(await request('GET', '/players?q=ellery'), 200)).players as Structured[]).map((p) => p._id)).to.include(savedPlayer);
    expect((await request('GET', `/players/${savedPlayer}`, { apiKey: otherKey })).status).to.equal(404);
    expect((await request('GET', `/reports/${savedReport}`, { apiKey: otherKey })).status).to.equal(404);
    const listed = (await json(await request('GET', `/reports?player_id=${savedPlayer}`), 200)).reports as Structured[];
    expect(listed.map((r) => r._id)).to.deep.equal([savedReport]);
    expect(listed[0]).to.include({ player_id: savedPlayer, player_name: 'Marcus Ellery', run_id: runId });
    expect(listed[0]).to.not.have.property('report_text');
    expect(((await json(await request('GET', '/reports', { apiKey: otherKey }), 200)).reports as Structured[]).map((r) => r._id)).to.not.include(savedReport);
    expect((await request('GET', `/scouting/runs/${runId}`, { apiKey: otherKey })).status).to.equal(404);
    const runs = await json(await request('GET', '/scouting/runs'), 200);
    expect((runs.runs as Structured[]).find((r) => r.run_id === runId)).to.include({ status: 'completed', saved: true });
  });

  it('answers refusals as JSON with their status, before any stream', async function () {
    const started = await stream('/scouting/runs', { request: 'Scout Caleb Drummond' });
    const runId = named(started, 'metadata')[0]!.run_id as string;
    const wrongGate = await request('POST', `/scouting/runs/${runId}/resume`, { body: { type: 'player_approval', action: 'approve' } });
    expect((await json(wrongGate, 409)).error).to.have.property('code', 'conflict');
    const tooLong = await request('POST', `/scouting/runs/${runId}/resume`, { body: { type: 'plan_approval', approved: true, query_hints: ['x'.repeat(101)] } });
    expect(tooLong.status).to.equal(400);
    expect((await request('POST', '/scouting/runs', { body: { request: '' } })).status).to.equal(400);
    expect((await request('POST', `/scouting/runs/${randomUUID()}/resume`, { body: { type: 'plan_approval', approved: true } })).status).to.equal(404);
    expect((await request('POST', `/scouting/runs/${runId}/resume`, { apiKey: otherKey, body: { type: 'plan_approval', approved: true } })).status).to.equal(404);
  });

  it('drives a run over MCP: documents_upload, scouting_start, scouting_resume at both gates, scouting_status, players_search', async function () {
    const uploaded = await tool('documents_upload', { name: 'okafor.md', text: '# June Okafor\n\nJune Okafor plays point guard for the Riverside Rays. Height: 6\'2" (188 cm). Weight: 185 lbs.\n\n## Strengths\n\nOkafor excels at pick-and-roll passing and is an elite on-ball defender.\n\n## Weaknesses\n\nOkafor struggles with finishing through contact.' });
    expect(uploaded.isError, textOf(uploaded)).to.not.equal(true);
    expect(textOf(uploaded)).to.include('indexed');
    const again = await tool('documents_upload', { name: 'okafor-copy.md', text: '# June Okafor\n\nJune Okafor plays point guard for the Riverside Rays. Height: 6\'2" (188 cm). Weight: 185 lbs.\n\n## Strengths\n\nOkafor excels at pick-and-roll passing and is an elite on-ball defender.\n\n## Weaknesses\n\nOkafor struggles with finishing through contact.' });
    expect(textOf(again)).to.include('"duplicate":true');

    const { result: start, progress } = await callToolWithProgress(mcp, 'scouting_start', { request: 'Scouting report for June Okafor' });
    expect(start.isError, textOf(start)).to.not.equal(true);
    const runId = (start.structuredContent as Structured).run_id as string;
    expect(start.structuredContent).to.include({ status: 'awaiting_plan_approval' });
    expect(textOf(start)).to.include('scouting_resume');
    expect(progress.length).to.be.greaterThan(0);

    const planned = await tool('scouting_resume', { run_id: runId, type: 'plan_approval', approved: true });
    expect(planned.structuredContent).to.include({ status: 'awaiting_player_approval' });
    expect(textOf(planned)).to.include('June Okafor').and.include('action approve');
    const status = await tool('scouting_status', { run_id: runId });
    expect((status.structuredContent as Structured).pending_gate).to.include({ gate: 'player_approval' });
    const saved = await tool('scouting_resume', { run_id: runId, type: 'player_approval', action: 'approve' });
    expect(((saved.structuredContent as Structured).result as Structured).saved).to.equal(true);
    // The same run and its saved report as resources an agent reads into its context.
    const templates = (await mcp.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).to.include.members(['scouting://run/{run_id}', 'scouting://report/{report_id}']);
    const run = JSON.parse(((await mcp.readResource({ uri: `scouting://run/${runId}` })).contents[0] as { text: string }).text) as Structured;
    expect(run).to.include({ run_id: runId, status: 'completed' });
    const reportId = ((saved.structuredContent as Structured).result as Structured).report_id as string;
    const report = (await mcp.readResource({ uri: `scouting://report/${reportId}` })).contents[0] as { text: string; mimeType?: string };
    expect(report.mimeType).to.equal('text/markdown');
    expect(report.text).to.include('June Okafor');
    const unknown = await mcp.readResource({ uri: 'scouting://report/no-such-report' }).then(() => undefined, (error: Error) => error);
    expect(unknown?.message).to.include('not found');
    const found = await tool('players_search', { query: 'okafor' });
    expect(textOf(found)).to.include('June Okafor');
    const refused = await tool('scouting_resume', { run_id: runId, type: 'player_approval', action: 'approve' });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.match(/waits at no gate/);
  });

  it('bulk runs: POST /scouting/batches scouts several players through both gates as one batch job', async function () {
    const queued = await json(await request('POST', '/scouting/batches', { body: { players: ['Theo Vance', { name: 'Rafael de la Torre', query_hints: ['route running'] }] } }), 202);
    expect(queued.runs).to.have.length(2);
    const raw = await (await fetch(`${base}${queued.events as string}`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect(raw).to.include('event: done');
    const results = await json(await request('GET', queued.results as string), 200);
    expect((results.results as Structured[]).map((r) => r.ok)).to.deep.equal([true, true]);
    for (const run of queued.runs as Structured[]) {
      const view = await json(await request('GET', run.status as string), 200);
      expect(view.status).to.equal('completed');
      expect(view.result).to.include({ saved: true });
    }
  });

  it('counts runs started, not approvals, against the hourly limit: over it, 429 with Retry-After', async function () {
    // 40 a hour here (KIND_LIMITS); a batch that would pass it is refused whole, before anything runs.
    const players = Array.from({ length: 41 }, (_, i) => `Player Number${i}`);
    const refused = await request('POST', '/scouting/batches', { body: { players } });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    expect((await json(refused, 429)).error).to.have.property('code', 'rate_limited');
  });

  it('troupe seed scouting loads the corpus for a user; again, nothing is indexed twice', async function () {
    await createUserKey('seeded', env);
    const first = await runTroupe(['seed', 'scouting', '--user', 'seeded'], env, processes, 60_000);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.include(`${corpus.length} of ${corpus.length} documents indexed`);
    const second = await runTroupe(['seed', 'scouting', '--user', 'seeded'], env, processes, 60_000);
    expect(second.stdout).to.include('not indexed again');
    const missing = await runTroupe(['seed', 'scouting', '--user', 'nobody-here'], env, processes, 60_000);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('troupe users create nobody-here');
  });
});
