import { expect } from 'chai';
import { gameKind, type GameActorState } from '../../../actors/game/kind.js';
import type { TurnContext } from '../../../actors/runtime/contract.js';
import type { Envelope } from '../../../queues/envelope.js';
import type { GameView } from '../../../actors/game/session.js';

interface Published {
  event: string;
  data: unknown;
  to: string | undefined;
}

/** Runs one message through the game actor's handler, recording what it publishes and answers. */
function turn(state: GameActorState, ownerId: string, type: string, payload: unknown) {
  const published: Published[] = [];
  let reply: unknown;
  const ctx = {
    actor: { kind: 'game', id: 'g-0123456789ab' },
    ownerId,
    emit() {},
    reply: (data: unknown) => (reply = data),
    fail() {},
    send() {},
    schedule() {},
    publish: (event: string, data: unknown, options?: { to?: string }) => published.push({ event, data, to: options?.to }),
    signal: new AbortController().signal,
    logger: { info() {}, warn() {}, error() {}, debug() {} },
    resources: {},
  } as unknown as TurnContext;
  const message = { messageId: `m-${type}`, actor: ctx.actor, ownerId, type, payload, createdAt: 0 } as Envelope;
  const next = gameKind.handle(state, message, ctx) as GameActorState;
  return { next, published, reply: reply as GameView };
}

describe('the game actor (actors/game/kind.ts)', function () {
  it('keeps a move’s reasoning in the mover’s own view of the feed, never in the others’ or the public update', function () {
    let state = gameKind.initialState({ kind: 'game', id: 'g-0123456789ab' }, 'ann') as GameActorState;
    state = turn(state, 'ann', 'create', { seats: [{ type: 'me' }, { type: 'open' }], seed: 4, playerName: 'Ann' }).next;
    state = turn(state, 'bob', 'join', { playerName: 'Bob' }).next;
    const mover = state.session!.game!.current === 0 ? 'ann' : 'bob';
    const other = mover === 'ann' ? 'bob' : 'ann';
    const { next, published, reply } = turn(state, mover, 'move', { move: 'play_all_treasures', reasoning: 'money first: I hold three Coppers' });

    expect(reply.reasoning).to.equal('money first: I hold three Coppers');
    const views = published.filter((p) => p.event === 'view');
    expect((views.find((v) => v.to === mover)!.data as GameView).reasoning).to.equal('money first: I hold three Coppers');
    expect(views.find((v) => v.to === other)!.data).to.not.have.property('reasoning');
    const update = published.find((p) => p.event === 'update')!;
    expect(update.to).to.equal(undefined);
    expect(JSON.stringify(update.data)).to.not.include('money first');
    // The game's log lives in the feed: the stored session does not carry it, nor the reasoning.
    expect(JSON.stringify(next)).to.not.include('money first');
    expect(next.session).to.not.have.property('log');
  });
});
