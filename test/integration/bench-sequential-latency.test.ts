import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CpuMeter } from '../../scripts/bench/process-cpu.js';
import { sequentialLatency } from '../../scripts/bench/sequential-latency.js';

/** Messages per series in the test: ten blocks of two, after WARMUP. */
const MESSAGES = 20;
const WARMUP = 3;
const PER_BLOCK = 2;
/** How long the stand-in server holds the message it holds in each block. */
const HOLD_MS = 60;

/** Uses this much of this process's CPU (not of the clock: a busy machine only makes it take longer). */
function burnCpu(ms: number) {
  const start = process.cpuUsage();
  while (true) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

/**
 * A stand-in for an echo gateway: it answers POST /actors/echo/:id/messages as JSON or SSE (`done`), and
 * holds the message at `place` of each block (known by its place in the actor's sequence; 0: the first),
 * so a figure of the section can only be that long if it is made of those messages.
 */
async function heldInBlock(place = 0, cpuPerMessageMs = 0): Promise<{ server: Server; base: string; seen: Map<string, number> }> {
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const actor = /^\/actors\/echo\/([^/]+)\/messages$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || !actor) {
        res.writeHead(404).end();
        return;
      }
      const n = seen.get(actor) ?? 0;
      seen.set(actor, n + 1);
      burnCpu(cpuPerMessageMs);
      const answer = () => {
        if (req.headers.accept === 'text/event-stream') res.writeHead(200, { 'content-type': 'text/event-stream' }).end('event: done\ndata: {}\n\n');
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"reply":"ok"}');
      };
      const held = n >= WARMUP && (n - WARMUP) % PER_BLOCK === place;
      if (held) setTimeout(answer, HOLD_MS);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('bench sequential latency (one client, taking turns in blocks)', function () {
  const servers: Server[] = [];
  afterEach(async function () {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    }
  });

  it('reports each series, and the first message of each block apart as the one sent after a pause', async function () {
    const troupe = await heldInBlock();
    const peer = await heldInBlock();
    servers.push(troupe.server, peer.server);

    const { troupe: latency, peer: peerLatency, troupeCalls } = await sequentialLatency({ troupe: { base: troupe.base, key: 'k' }, peer: { base: peer.base, key: 'k' } }, MESSAGES, WARMUP, 'test');

    // Every series sent its warm-up and its messages, each to its own actor.
    for (const { seen } of [troupe, peer]) {
      expect([...seen.values()]).to.deep.equal([WARMUP + MESSAGES, WARMUP + MESSAGES]);
    }
    const { first_after_pause: afterPause } = latency;
    expect(afterPause.what).to.include(`1 in ${PER_BLOCK}`);
    expect(afterPause.quiet_ms).to.be.above(0);
    // Only the held messages can take HOLD_MS (a timer never fires early by more than a millisecond).
    for (const series of [afterPause.troupe.json, afterPause.troupe.sse, afterPause.naive_peer.json, afterPause.naive_peer.sse]) {
      expect(series.p50_ms).to.be.at.least(HOLD_MS - 1);
    }
    // Half the messages were held, and they count in the series' figures too.
    for (const series of [latency.json, latency.sse, peerLatency.json, peerLatency.sse]) {
      expect(series.p99_ms).to.be.at.least(HOLD_MS - 1);
    }
    expect(latency.json_meets_targets).to.equal(false);
    // troupe's blocks (JSON and SSE) as clock times, each with its first call: the held one, inside it.
    expect(troupeCalls.blocks).to.have.length(2 * (MESSAGES / PER_BLOCK));
    expect(troupeCalls.firstAfterPause).to.have.length(troupeCalls.blocks.length);
    troupeCalls.firstAfterPause.forEach((first, i) => {
      const block = troupeCalls.blocks[i];
      expect(first.startedAt).to.equal(block.startedAt);
      expect(first.endedAt).to.be.at.most(block.endedAt);
      expect(first.endedAt - first.startedAt).to.be.at.least(HOLD_MS - 1);
    });
  });

  it('reports the rest of each block apart, without the first message', async function () {
    const troupe = await heldInBlock(1);
    const peer = await heldInBlock(1);
    servers.push(troupe.server, peer.server);

    const { troupe: latency } = await sequentialLatency({ troupe: { base: troupe.base, key: 'k' }, peer: { base: peer.base, key: 'k' } }, MESSAGES, WARMUP, 'test');

    // Blocks of two: the rest of each block is its second message, the one held.
    const { others } = latency.first_after_pause;
    for (const series of [others.troupe.json, others.troupe.sse, others.naive_peer.json, others.naive_peer.sse]) {
      expect(series.p50_ms).to.be.at.least(HOLD_MS - 1);
    }
  });

  it("counts each side's CPU over its own blocks only", async function () {
    // Both stand-ins run in this process: only troupe's spends CPU on purpose, so the peer's figure can
    // stay low only if the meters run during their own side's blocks and not the other's.
    const troupe = await heldInBlock(-1, 4);
    const peer = await heldInBlock(-1);
    servers.push(troupe.server, peer.server);

    const { troupe: latency } = await sequentialLatency({ troupe: { base: troupe.base, key: 'k' }, peer: { base: peer.base, key: 'k' } }, MESSAGES, WARMUP, 'test', {
      troupe: new CpuMeter({ stand_in: process.pid }),
      peer: new CpuMeter({ stand_in: process.pid }),
    });

    const cpu = latency.cpu_ms_per_msg!;
    expect(cpu.troupe.stand_in).to.be.at.least(4);
    expect(cpu.troupe.total).to.equal(cpu.troupe.stand_in);
    expect(cpu.naive_peer.stand_in).to.be.below(2);
  });
});
