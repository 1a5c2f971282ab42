/**
 * `npm run bench:faults`, slow and hostile clients (issue 14, point 6), against a real `troupe gateway`
 * (default settings: SSE_SEND_BUFFER_CAP 1mb, HTTP_HEADERS_TIMEOUT_SECONDS 10): `sseClients` SSE
 * connections that never read a busy feed, and `slowloris` requests whose headers trickle in a byte at
 * a time and never finish.
 *
 * Measured: /healthz latency before and during the attack (p50/p99), the gateway's RSS before, at its
 * peak during, and after, how many slow readers the gateway dropped (its warnings) and how many
 * slowloris sockets it closed.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { loadConfig } from '../../config.js';
import { trickle } from './trickle.js';
import { RedisNames } from '../../../queues/keys.js';
import type { Logger } from '../../../logging/logger.js';
import { benchPrefix, createBenchUser, deleteBenchKeys, freePort, latencySummary, troupe, type BenchProcess } from '../troupe-processes.js';

const FEED = { kind: 'game', id: 'g-0000000bec4e' };
/** Feed data pushed during the attack: far past the cap plus what the kernel's socket buffers hold, per client. */
const ENTRIES = 128;
const ENTRY_BYTES = 64 * 1024;
const TRICKLE_MS = 200;
/** Header bytes a slowloris client sends at most (bounds its loop). */
const MAX_TRICKLE_BYTES = 300;
/** Bounds on the waits of the bench. */
const WAIT_MS = 60_000;
/** Pause between two /healthz probes. */
const PROBE_GAP_MS = 10;

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

export async function runSlowClientsBench(options: { redisUrl: string; logger: Logger; sseClients: number; slowloris: number }): Promise<Record<string, unknown>> {
  const { redisUrl, logger, sseClients, slowloris } = options;
  const names = new RedisNames(benchPrefix('slow'));
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const env = {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: names.prefix,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_slow_${process.pid}`,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
  };
  const processes: BenchProcess[] = [];
  const sockets: Socket[] = [];
  const timers: Array<ReturnType<typeof setInterval>> = [];
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env);
    processes.push(mongo);
    await mongo.waitFor('listening');
    const key = await createBenchUser(env);
    const gateway = troupe(['gateway'], env, { logLevel: 'warn' });
    processes.push(gateway);
    const healthz = `http://127.0.0.1:${httpPort}/healthz`;
    const deadline = Date.now() + WAIT_MS;
    while ((await fetch(healthz).then((r) => r.status, () => 0)) !== 200) {
      if (gateway.child.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start:\n${gateway.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const pid = gateway.child.pid!;

    const probe = async (count: number, until?: () => boolean): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; i < count && !(until?.() ?? false); i++) {
        const started = performance.now();
        await fetch(healthz).then((r) => r.arrayBuffer());
        samples.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, PROBE_GAP_MS));
      }
      return samples;
    };
    const open = async (text: string): Promise<Socket> => {
      const socket = connect({ host: '127.0.0.1', port: httpPort });
      sockets.push(socket);
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write(text);
      return socket;
    };

    const baseline = await probe(200);
    const rssBefore = await rssMb(pid);

    for (let i = 0; i < sseClients; i++) {
      const socket = await open(`GET /games/${FEED.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nX-API-Key: ${key}\r\nLast-Event-ID: 0-1\r\n\r\n`);
      socket.pause();
    }
    let slowlorisClosed = 0;
    for (let i = 0; i < slowloris; i++) {
      const socket = await open('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ');
      socket.once('close', () => (slowlorisClosed += 1));
      timers.push(trickle(socket, { everyMs: TRICKLE_MS, maxBytes: MAX_TRICKLE_BYTES }));
    }

    let rssPeak = await rssMb(pid);
    const rssTimer = setInterval(() => void rssMb(pid).then((mb) => (rssPeak = Math.max(rssPeak, mb)), () => undefined), 100);
    timers.push(rssTimer);
    const dropped = () => gateway.output().split('\n').filter((line) => line.includes('SSE client too far behind')).length;
    let attackOver = false;
    const during = probe(100_000, () => attackOver);
    const blob = 'x'.repeat(ENTRY_BYTES);
    for (let i = 0; i < ENTRIES; i++) await redis.xadd(names.feed(FEED), '*', 'e', 'update', 'd', JSON.stringify({ to: null, data: { i, blob } }));
    const attackDeadline = Date.now() + WAIT_MS;
    while ((dropped() < sseClients || slowlorisClosed < slowloris) && Date.now() < attackDeadline) await new Promise((r) => setTimeout(r, 100));
    attackOver = true;
    const duringSamples = await during;
    clearInterval(rssTimer);

    for (const socket of sockets) socket.destroy();
    // Let the gateway see the sockets go and collect what they held.
    await new Promise((r) => setTimeout(r, 2_000));
    const rssAfter = await rssMb(pid);
    logger.info({ dropped: dropped(), slowlorisClosed }, 'slow clients bench done');

    return {
      sse_clients: sseClients,
      slowloris,
      feed_pushed_mb: Math.round((ENTRIES * ENTRY_BYTES) / 1024 / 102.4) / 10,
      send_buffer_cap_bytes: loadConfig().sse.sendBufferCapBytes,
      headers_timeout_s: 10,
      healthz_before: latencySummary(baseline, [50, 99]),
      healthz_during_attack: { ...latencySummary(duringSamples, [50, 99]), samples: duringSamples.length },
      gateway_rss_mb: { before: rssBefore, peak_during: rssPeak, after: rssAfter },
      slow_readers_dropped: dropped(),
      slowloris_sockets_closed_by_server: slowlorisClosed,
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const socket of sockets) socket.destroy();
    redis.disconnect();
    for (const p of processes.reverse()) {
      if (p.child.exitCode === null) {
        const exited = once(p.child, 'exit');
        p.child.kill('SIGTERM');
        await exited;
      }
    }
    await deleteBenchKeys(redisUrl, names.prefix);
  }
}
