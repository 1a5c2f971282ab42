/**
 * Slow and hostile clients (issue 14, point 6), against a real `troupe gateway` process: SSE clients
 * that never read a busy feed, and slowloris requests whose headers trickle in byte by byte.
 *
 * What must hold: each slow reader is dropped, with one warning naming its request id and stream, once
 * more than SSE_SEND_BUFFER_CAP waits for it; each slowloris socket is closed by the server after
 * HTTP_HEADERS_TIMEOUT_SECONDS; and /healthz answers throughout. No timing is asserted.
 */
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, spawnTroupe, startTroupeMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { trickle } from '../../scripts/bench/faults/trickle.js';

const SLOW_READERS = 5;
const SLOWLORIS = 5;
const FEED = { kind: 'game', id: 'g-00000000510f' };
/** Feed entries pushed, and the size of each: far past the cap plus what the kernel's socket buffers hold. */
const ENTRIES = 64;
const ENTRY_BYTES = 64 * 1024;
/** A slowloris client sends at most this many header bytes, one per tick. */
const MAX_TRICKLE_BYTES = 200;
const TRICKLE_MS = 100;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('slow and hostile clients (real gateway process)', function () {
  this.timeout(180_000);
  const spawned: TroupeProcess[] = [];
  const sockets: Socket[] = [];
  const timers: Array<ReturnType<typeof setInterval>> = [];
  const names = new RedisNames(`test-slow-clients-${process.pid}`);
  let gateway: TroupeProcess | undefined;
  let redis: Redis | undefined;
  let port = 0;
  let key = '';

  before(async function () {
    const mongoPort = await freePort();
    port = await freePort();
    const env = troupeEnv({
      REDIS_URL: redisUrl,
      REDIS_PREFIX: names.prefix,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'slow_clients',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      SSE_SEND_BUFFER_CAP: '64kb',
      HTTP_HEADERS_TIMEOUT_SECONDS: '1',
      HTTP_REQUEST_TIMEOUT_SECONDS: '2',
    });
    await startTroupeMongo(mongoPort, env, spawned);
    key = await createUserKey('slow', env);
    gateway = spawnTroupe(['gateway'], env);
    spawned.push(gateway);
    await pollUntil(
      async () => {
        if (gateway!.exitStatus()) throw new Error(`troupe gateway exited: ${gateway!.stderr()}`);
        return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 90_000, what: 'the gateway /healthz' },
    );
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });

  after(async function () {
    for (const timer of timers) clearInterval(timer);
    for (const socket of sockets) socket.destroy();
    redis?.disconnect();
    await Promise.all(spawned.map((p) => p.kill()));
    await deleteRedisPrefix(names.prefix, redisUrl);
  });

  const healthy = async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;

  /** A socket to the gateway that writes `text` and then never reads. */
  async function rawSocket(text: string): Promise<Socket> {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(text);
    return socket;
  }

  it('drops SSE clients that fall more than the cap behind, with a warning naming the request and the stream', async function () {
    const requestIds = Array.from({ length: SLOW_READERS }, (_, i) => `slow-reader-${process.pid}-${i}`);
    for (const requestId of requestIds) {
      // Resuming after an id skips the snapshot: the stream follows the feed at once.
      const socket = await rawSocket(
        `GET /games/${FEED.id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nX-API-Key: ${key}\r\nLast-Event-ID: 0-1\r\nX-Request-Id: ${requestId}\r\n\r\n`,
      );
      socket.pause();
    }
    const blob = 'x'.repeat(ENTRY_BYTES);
    for (let i = 0; i < ENTRIES; i++) {
      await redis!.xadd(names.feed(FEED), '*', 'e', 'update', 'd', JSON.stringify({ to: null, data: { i, blob } }));
    }
    const warnings = () =>
      gateway!
        .stdout()
        .split('\n')
        .filter((line) => line.includes('SSE client too far behind'))
        .map((line) => JSON.parse(line) as { level: number; requestId?: string; stream?: string });
    await pollUntil(() => warnings().length >= SLOW_READERS, { timeoutMs: 60_000, what: `${SLOW_READERS} slow readers to be dropped` });
    const dropped = warnings();
    expect(dropped.map((w) => w.requestId).sort()).to.deep.equal([...requestIds].sort());
    for (const w of dropped) expect(w).to.include({ level: 40, stream: `/games/${FEED.id}/events` });
    expect(gateway!.stdout()).to.not.include(key);
    expect(await healthy()).to.equal(true);
  });

  it('closes slowloris connections whose headers never finish, and /healthz answers meanwhile', async function () {
    const closed = new Set<Socket>();
    for (let i = 0; i < SLOWLORIS; i++) {
      const socket = await rawSocket('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ');
      socket.on('close', () => closed.add(socket));
      timers.push(trickle(socket, { everyMs: TRICKLE_MS, maxBytes: MAX_TRICKLE_BYTES }));
    }
    expect(await healthy()).to.equal(true);
    await pollUntil(() => closed.size === SLOWLORIS, { timeoutMs: 30_000, what: 'the server to close every slowloris socket' });
    expect(await healthy()).to.equal(true);
  });
});
