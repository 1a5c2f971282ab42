/**
 * A scouting run under a crash (real processes): the worker is killed with SIGKILL while it is inside
 * the save, at MongoDB's commitTransaction. The embedded server holds that command (MongoDB's own
 * `failCommand` fail point with blockConnection, as `troupe mongo --enable-test-commands` allows) and
 * then carries it out, as mongod does for a client that went away: the player and report are written
 * by a worker that died before it could commit the run's state. Another worker re-runs the turn; the
 * client gets its answer; there is exactly one player and one report.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { scoutingCorpus } from '../../models/scouting-corpus.js';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

type Structured = Record<string, unknown>;

describe('scouting under faults: kill -9 of the worker during the save (real processes)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const redisPrefix = `test-scouting-faults-${process.pid}-${Date.now().toString(36)}`;
  let env: NodeJS.ProcessEnv;
  let base = '';
  let key = '';
  let mongoUri = '';
  let admin: MongoClient;

  async function startWorker(): Promise<TroupeProcess> {
    const worker = spawnTroupe(['worker'], env);
    processes.push(worker);
    await pollUntil(
      () => {
        if (worker.exitStatus()) throw new Error(`troupe worker exited: ${worker.stderr()}`);
        return worker.stdout().includes('workers started');
      },
      { timeoutMs: 60_000, what: 'troupe worker to start its workers' },
    );
    return worker;
  }

  /** A POST answered as SSE, read to its end; the run's view from its `run` event. */
  async function post(path: string, body: Structured): Promise<Structured> {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body) });
    const raw = await response.text();
    expect(response.status, raw).to.equal(200);
    expect(raw, raw).to.not.include('event: error');
    const run = [...raw.matchAll(/event: run\n(?:id: [^\n]*\n)?data: (.*)\n/g)].at(-1)?.[1];
    expect(run, raw).to.be.a('string');
    return JSON.parse(run!) as Structured;
  }

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    mongoUri = `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`;
    env = troupeEnv({ MONGODB_URI: mongoUri, MONGODB_DB: 'scouting_faults', REDIS_PREFIX: redisPrefix, PORT: String(port), HOST: '127.0.0.1', LLM_PROVIDER: 'offline', LARGE_LANGUAGE_MODEL: '' });
    const mongo = spawnTroupe(['mongo', '--port', String(mongoPort), '--enable-test-commands'], env);
    processes.push(mongo);
    await pollUntil(() => mongo.stdout().includes('listening'), { timeoutMs: 30_000, what: 'troupe mongo' });
    key = await createUserKey('crash-scout', env);
    const gateway = spawnTroupe(['gateway'], env);
    processes.push(gateway);
    await startWorker();
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000, what: `${base}/readyz` });
    admin = await MongoClient.connect(mongoUri);
    const corpus = scoutingCorpus().map((d) => ({ name: d.name, content_type: d.contentType, base64: d.bytes.toString('base64') }));
    const uploaded = (await (await fetch(`${base}/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ documents: corpus }) })).json()) as Structured;
    const progress = await (await fetch(`${base}${uploaded.events as string}`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect(progress).to.include('event: done');
  });

  after(async function () {
    await admin?.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' }).catch(() => undefined);
    await admin?.close();
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('another worker finishes the run, and there is exactly one player and one report', async function () {
    const started = await post('/scouting/runs', { request: 'Generate a scouting report for Caleb Drummond' });
    const runId = started.run_id as string;
    expect((await post(`/scouting/runs/${runId}/resume`, { type: 'plan_approval', approved: true })).status).to.equal('awaiting_player_approval');

    // The next commitTransaction (the save's) waits 3 s inside the server, then goes through.
    const { count } = (await admin.db('admin').command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['commitTransaction'], blockConnection: true, blockTimeMS: 3000 } })) as { count: number };
    const approving = post(`/scouting/runs/${runId}/resume`, { type: 'player_approval', action: 'approve' });
    await admin.db('admin').command({ waitForFailPoint: 'failCommand', timesEntered: count + 1, maxTimeMS: 60_000 });
    const dying = processes.find((p) => p.stdout().includes('workers started') && !p.exitStatus())!;
    await dying.kill();
    expect(dying.exitStatus()?.signal).to.equal('SIGKILL');
    await startWorker();

    const finished = await approving;
    expect(finished.status).to.equal('completed');
    const result = finished.result as Structured;
    expect(result).to.include({ saved: true });
    const db = admin.db('scouting_faults');
    const players = await db.collection('players').find({ run_id: runId }).toArray();
    const reports = await db.collection('scouting_reports').find({ run_id: runId }).toArray();
    expect(players).to.have.length(1);
    expect(reports).to.have.length(1);
    expect(players[0]!._id).to.equal(result.player_record_id);
    expect(reports[0]!._id).to.equal(result.report_id);
    expect(players[0]!.latest_report_id).to.equal(reports[0]!._id);
  });
});
