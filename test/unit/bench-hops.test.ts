import { expect } from 'chai';
import { hopPercentiles, hopPercentilesApart, outsideHops } from '../../scripts/bench/hop-percentiles.js';

/** A gateway hop line as the HopTracer logs it (pino JSON), for a message received at `at`. */
const hopLine = (at: number, replyHeard: number) => JSON.stringify({ level: 30, msg: 'hops', hops_ms: { received: 0, committed: replyHeard - 1, reply_heard: replyHeard }, first_hop_at: at });

describe('bench hop traces', function () {
  it('gathers the hops of every traced line, whatever else the log holds', function () {
    const log = ['{"level":30,"msg":"listening"}', hopLine(1000, 4), 'not json "hops_ms"', hopLine(2000, 6)].join('\n');
    const { messages, hops } = hopPercentiles(log);
    expect(messages).to.equal(2);
    expect(Object.keys(hops)).to.deep.equal(['received', 'committed', 'reply_heard']);
    expect(hops.reply_heard.p99).to.equal(6);
  });

  it('places each client call around the traced message that reached the gateway during it', function () {
    // Two calls one after another; a third whose message was never traced; lines logged out of order.
    const log = [hopLine(2001.5, 5), hopLine(1000.25, 3)].join('\n');
    const calls = [
      { startedAt: 1000, endedAt: 1004.25 },
      { startedAt: 2000, endedAt: 2008 },
      { startedAt: 3000, endedAt: 3005 },
    ];
    const outside = outsideHops(log, calls);
    expect(outside.calls).to.equal(2);
    // Before the first hop: 0.25 and 1.5 ms; after the reply was heard: 1 and 1.5 ms.
    expect(outside.to_first_hop).to.deep.equal({ p50: 1.5, p99: 1.5 });
    expect(outside.after_reply_heard.p50).to.equal(1.5);
    expect(outsideHops(log, []).calls).to.equal(0);
  });

  it('splits the messages that reached the gateway inside the windows: those during the calls set apart, and the rest', function () {
    // A warm-up message (outside every window), then two blocks; the first message of each is set apart.
    const log = [hopLine(500, 50), hopLine(1000.5, 9), hopLine(1010, 2), hopLine(1020, 3), hopLine(2000.5, 7), hopLine(2010, 4)].join('\n');
    const windows = [
      { startedAt: 1000, endedAt: 1030 },
      { startedAt: 2000, endedAt: 2020 },
    ];
    const apart = [
      { startedAt: 1000, endedAt: 1009.5 },
      { startedAt: 2000, endedAt: 2007.5 },
    ];
    const { apart: first, rest } = hopPercentilesApart(log, windows, apart);
    expect(first.messages).to.equal(2);
    expect(first.hops.reply_heard.p99).to.equal(9);
    expect(rest.messages).to.equal(3);
    expect(rest.hops.reply_heard.p99).to.equal(4);
    expect(hopPercentilesApart(log, [], apart).apart.messages).to.equal(0);
  });
});
