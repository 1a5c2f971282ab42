/**
 * `troupe seed scouting [--user NAME]`: uploads the bundled scouting corpus for a user, the same way
 * POST /documents does (one batch job of document messages through Redis), and reports each file's
 * outcome. When no worker serves documents (troupe is not running), it runs the document workers in
 * this process for the length of the upload.
 */
import { ingestMessage } from '../actors/documents/contract.js';
import { documentKind, searchIndexKind } from '../actors/documents/kind.js';
import type { DocumentState } from '../actors/documents/state.js';
import { ActorClient } from '../actors/runtime/client.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { startWorkers, type RunningWorkers } from '../actors/runtime/workers.js';
import { UserDirectory } from '../gateway/users.js';
import { scoutingCorpus } from '../models/scouting-corpus.js';
import { RedisNames } from '../queues/keys.js';
import { agentResources } from './agent-resources.js';
import { connectOrReport, quieterLogLevel } from './command-mongo.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';
import { progressBar, type ProgressOutput } from './progress-bar.js';
import { LOCAL_REDIS_URL } from './worker.js';

export interface SeedCommandIo {
  stdout: Pick<NodeJS.WriteStream, 'write'>;
  stderr: ProgressOutput;
}

const defaultIo: SeedCommandIo = { stdout: process.stdout, stderr: process.stderr };
/** Longest quiet gap in the batch's progress before the command gives up waiting. */
const IDLE_TIMEOUT_MS = 120_000;

export async function runSeedScouting(config: Config, { user: userName = 'local' }: { user?: string } = {}, io = defaultIo): Promise<number> {
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, 'troupe seed scouting', io.stderr);
  if (!mongo) return 1;
  let client: ActorClient | undefined;
  let workers: RunningWorkers | undefined;
  try {
    const users = await UserDirectory.open(mongo.connection);
    const user = (await users.listUsers()).find((u) => u.name === userName && !u.revokedAt);
    if (!user) {
      io.stderr.write(`troupe: no user '${userName}'. Create one with: troupe users create ${userName}  (or pass --user NAME; \`troupe start\` creates 'local')\n`);
      return 1;
    }
    const redisUrl = config.redis.url ?? LOCAL_REDIS_URL;
    const names = RedisNames.forRedis(redisUrl, config.redis.prefix, config.redis.partitions);
    const kinds = [documentKind, searchIndexKind] as AnyKind[];
    client = new ActorClient(redisUrl, mongo.connection, kinds, names);
    const live = await client.liveWorkers().catch((error: unknown) => {
      throw new Error(`cannot reach Redis at ${redisUrl} (REDIS_URL): ${(error as Error).message}`);
    });
    if (!live[documentKind.kind] || !live[searchIndexKind.kind]) {
      io.stderr.write('No troupe worker serves documents: ingesting in this process.\n');
      workers = await startWorkers({ redisUrl, mongo: mongo.connection, kinds, ...(await agentResources(config, mongo.connection)), logger: logger.child({ component: 'worker' }), names });
    }
    const corpus = scoutingCorpus();
    const messages = corpus.map((d) => ingestMessage(user.id, d));
    const batchId = await client.sendBatch(user.id, documentKind.kind, messages.map((m) => ({ actor: { kind: documentKind.kind, id: m.actorId }, type: m.type, payload: m.payload })));
    const bar = progressBar(io.stderr);
    for await (const event of client.followBatch(batchId, { idleTimeoutMs: IDLE_TIMEOUT_MS })) {
      if (event.event === 'done') break;
      const p = event.data as { done: number; failed: number; total: number };
      bar.update({ step: 'documents', stepDone: p.done + p.failed, stepTotal: p.total, done: p.done + p.failed, total: p.total });
    }
    bar.finish();
    const states = await Promise.all(messages.map((m) => client!.state({ kind: documentKind.kind, id: m.actorId }, user.id) as Promise<DocumentState>));
    const width = Math.max(...corpus.map((d) => d.name.length));
    const lines = states.map((s, i) => {
      const what = s.status === 'indexed' ? `${s.chunk_count} chunks${s.uploads > 1 ? ' (already there: not indexed again)' : ''}` : `${s.status}${s.reason ? `: ${s.reason}` : ''}`;
      return `  ${corpus[i]!.name.padEnd(width)}  ${what}\n`;
    });
    const indexed = states.filter((s) => s.status === 'indexed').length;
    const players = [...new Set(corpus.flatMap((d) => d.players))].join(', ');
    io.stdout.write(`Scouting corpus for ${userName}: ${indexed} of ${corpus.length} documents indexed (batch ${batchId}).\n${lines.join('')}Players: ${players}.\nTry: POST /scouting/runs {"request": "Scouting report for ${corpus[0]!.players[0]}"}\n`);
    return indexed === corpus.length ? 0 : 1;
  } finally {
    await workers?.close();
    await client?.close();
    await mongo.stop();
  }
}
