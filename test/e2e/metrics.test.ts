/**
 * Metrics on a production-like troupe: `troupe gateway` and `troupe worker` as separate processes (the
 * worker serving its own /metrics on METRICS_PORT), some traffic — an echo message over HTTP with SSE,
 * a game move over HTTP, a message refused by a limit — and then every metric the shipped Grafana
 * dashboard (deploy/grafana/troupe-dashboard.json) queries must exist in what the processes serve.
 * Then `troupe start`, whose one /metrics serves what its gateway and its workers record.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { pollUntil } from '../support/async.js';
import { dashboardExpressions, familyOf, metricFamilies, promqlMetricNames } from '../support/metric-names.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { openSse } from '../support/sse-client.js';
import { createUserKey, spawnTroupe, startSeededMongo, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';

const dashboardPath = fileURLToPath(new URL('../../deploy/grafana/troupe-dashboard.json', import.meta.url));
const METRICS_TOKEN = 'metrics-e2e-token-0123456789';

/** The value of one sample line (`name{labels} value`), or undefined when there is no such series. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics of a gateway and a worker process, and of troupe start', function () {
  this.timeout(180_000);
  const spawned: TroupeProcess[] = [];
  const prefix = `test-metrics-${process.pid}`;
  const startPrefix = `test-metrics-start-${process.pid}`;
  let base = '';
  let startBase = '';
  let workerMetrics = '';
  let key = '';

  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const scrape = async (url: string): Promise<string> => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status, url).to.equal(200);
    return response.text();
  };

  before(async function () {
    const [mongoPort, port, metricsPort, startPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: prefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      // Read by `troupe worker` only; the gateway serves /metrics on PORT.
      METRICS_PORT: String(metricsPort),
      METRICS_TOKEN,
      // Two echo messages an hour: the third is refused by the rate limit.
      KIND_LIMITS: 'echo:rate=2/3600',
    });
    await startSeededMongo(mongoPort, env, spawned);
    key = await createUserKey('metrics', env);
    base = `http://127.0.0.1:${port}`;
    workerMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
    startBase = `http://127.0.0.1:${startPort}`;
    // `troupe start` beside them, on the same database.
    const start = spawnTroupe(['start'], { ...env, REDIS_PREFIX: startPrefix, PORT: String(startPort), METRICS_PORT: '', KIND_LIMITS: '' });
    spawned.push(start);
    const startReady = pollUntil(
      async () => {
        if (start.exitStatus()) throw new Error(`troupe start exited: ${start.stderr()}`);
        return (await fetch(`${startBase}/readyz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 120_000, what: `${startBase}/readyz` },
    );
    startReady.catch(() => undefined); // awaited below; a failure meanwhile must not go unhandled
    await startWorkerAndGateway(env, base, spawned);
    // The worker's endpoint starts right after its queues: /readyz may answer a moment before it listens.
    await pollUntil(async () => (await fetch(workerMetrics).catch(() => undefined))?.status === 401, { timeoutMs: 30_000, what: workerMetrics });

    const streamed = await api('POST', '/actors/echo/metrics/messages', { type: 'say', payload: { text: 'over SSE' } }, { accept: 'text/event-stream' });
    expect(streamed.status).to.equal(200);
    expect(await streamed.text()).to.include('event: done');
    expect((await api('POST', '/actors/echo/metrics/messages', { type: 'say', payload: { text: 'as JSON' } })).status).to.equal(200);
    const refused = await api('POST', '/actors/echo/metrics/messages', { type: 'say', payload: { text: 'one too many' } });
    expect(refused.status).to.equal(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).to.equal('rate_limited');

    const game = await api('POST', '/games', { seats: ['me', 'bot:bmu'], seed: 7 });
    expect(game.status).to.equal(200);
    const { gameId } = (await game.json()) as { gameId: string };
    const moved = await api('POST', `/games/${gameId}/moves`, { move: '1' });
    expect(moved.status, await moved.clone().text()).to.equal(200);
    await startReady;
  });

  after(async () => {
    await Promise.all(spawned.map((p) => p.kill()));
    await Promise.all([deleteRedisPrefix(prefix), deleteRedisPrefix(startPrefix)]);
  });

  it('the worker serves its turns and commits at METRICS_PORT, behind METRICS_TOKEN', async () => {
    expect((await fetch(workerMetrics)).status).to.equal(401);
    const text = await scrape(workerMetrics);
    // Every turn is recorded where it runs, whichever route sent it: HTTP actor routes and the game's own routes alike.
    expect(sample(text, 'troupe_turn_duration_seconds_count{kind="echo",outcome="reply"}')).to.equal(2);
    expect(sample(text, 'troupe_turn_duration_seconds_count{kind="game",outcome="reply"}')).to.be.at.least(2);
    expect(sample(text, 'troupe_mongo_commit_duration_seconds_count{kind="echo",result="applied"}')).to.equal(2);
    expect(text).to.include('troupe_process_cpu_seconds_total');
  });

  it('the gateway serves limit rejections, post-to-reply latency, reply-stream lag, queues and open SSE streams', async () => {
    const text = await scrape(`${base}/metrics`);
    expect(sample(text, 'troupe_limit_rejections_total{kind="echo",limit="rate"}')).to.equal(1);
    expect(sample(text, 'troupe_message_reply_duration_seconds_count{kind="echo",outcome="reply"}')).to.equal(2);
    expect(sample(text, 'troupe_reply_stream_lag_seconds_count')).to.be.at.least(1);
    expect(sample(text, 'troupe_queue_oldest_waiting_seconds{kind="echo"}')).to.be.a('number');
    // Turns are the workers' to record: this gateway runs none, so it has the family but no series.
    expect(text).to.not.match(/^troupe_turn_duration_seconds_count\{/m);

    const games = (await (await api('GET', '/games')).json()) as { games: Array<{ gameId: string }> };
    const events = await openSse(`${base}/games/${games.games[0]!.gameId}/events`, { authorization: `Bearer ${key}` });
    try {
      expect(events.response.status).to.equal(200);
      // The echo stream above is counted until its response has closed on the server, a moment after the client read its end.
      await pollUntil(async () => sample(await scrape(`${base}/metrics`), 'troupe_sse_connections_open') === 1, { timeoutMs: 10_000, what: 'one SSE stream counted open' });
    } finally {
      events.close();
    }
    await pollUntil(async () => sample(await scrape(`${base}/metrics`), 'troupe_sse_connections_open') === 0, { timeoutMs: 10_000, what: 'the SSE stream to be counted closed' });
  });

  it('every metric the Grafana dashboard queries exists on the gateway or the worker', async () => {
    const dashboard = JSON.parse(await readFile(dashboardPath, 'utf8'));
    const used = new Set(dashboardExpressions(dashboard).flatMap(promqlMetricNames));
    expect(used.size, 'metric names found in the dashboard').to.be.at.least(10);
    const families = new Map([...metricFamilies(await scrape(`${base}/metrics`)), ...metricFamilies(await scrape(workerMetrics))]);
    const missing = [...used].filter((name) => familyOf(name, families) === undefined);
    expect(missing, 'dashboard metrics that no process serves').to.deep.equal([]);
    for (const family of ['troupe_turn_duration_seconds', 'troupe_queue_jobs', 'troupe_queue_oldest_waiting_seconds', 'troupe_limit_rejections_total', 'troupe_sse_connections_open', 'troupe_reply_stream_lag_seconds', 'troupe_mongo_commit_duration_seconds']) {
      expect([...used].some((name) => familyOf(name, families) === family), `the dashboard shows ${family}`).to.equal(true);
    }
  });

  it('troupe start serves the turns its own workers ran on its gateway\'s /metrics', async () => {
    const sent = await fetch(`${startBase}/actors/echo/metrics-start/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'say', payload: { text: 'hello' } }),
    });
    expect(sent.status).to.equal(200);
    const text = await scrape(`${startBase}/metrics`);
    expect(sample(text, 'troupe_turn_duration_seconds_count{kind="echo",outcome="reply"}')).to.equal(1);
    expect(sample(text, 'troupe_mongo_commit_duration_seconds_count{kind="echo",result="applied"}')).to.equal(1);
    expect(sample(text, 'troupe_message_reply_duration_seconds_count{kind="echo",outcome="reply"}')).to.equal(1);
  });
});
