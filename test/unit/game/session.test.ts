import { expect } from 'chai';
import {
  createSession,
  endSession,
  executeMove,
  joinSession,
  resign,
  seatOf,
  SessionError,
  summaryOf,
  viewFor,
  type GameSession,
} from '../../../actors/game/session.js';

const ann = { userId: 'u-ann', name: 'Ann' };
const bob = { userId: 'u-bob', name: 'Bob' };

function sessionError(run: () => unknown): SessionError {
  try {
    run();
  } catch (e) {
    expect(e).to.be.instanceOf(SessionError);
    return e as SessionError;
  }
  throw new Error('no SessionError thrown');
}

/** What MongoDB gives back: undefined fields become null (the driver's default), the rest is JSON. */
const stored = (session: GameSession): GameSession => JSON.parse(JSON.stringify(session, (_, v: unknown) => (v === undefined ? null : v))) as GameSession;

describe('game sessions (seats, bots, views)', () => {
  it('a game with a bot starts at once; the bot moves inside the call until the person must decide', () => {
    const { session } = createSession({ gameId: 'g-1', host: ann, seats: [{ type: 'bot', bot: 'bmu' }, { type: 'me' }], seed: 9, now: 0 });
    expect(session.status).to.equal('playing');
    expect(seatOf(session, ann.userId)).to.equal(1);
    const view = viewFor(session, ann.userId, { message: 'hi' });
    expect(view.toMove, 'whoever starts, the person is the one to move when the call returns').to.equal(1);
    expect(view.options.length).to.be.greaterThan(0);
    expect(view.validMoves).to.deep.equal(view.options.map((o) => o.command));
    const { events } = executeMove(session, ann.userId, 'end_turn');
    expect(events.some((line) => line.startsWith('Player 1 played')), events.join('\n')).to.equal(true);
    expect(viewFor(session, ann.userId, { message: '' }).toMove).to.equal(1);
  });

  it('open seats wait for players; joining fills them and deals; the stored session keeps working', () => {
    const { session } = createSession({ gameId: 'g-2', host: ann, seats: [{ type: 'me' }, { type: 'open' }], seed: 4, now: 0 });
    expect(session.status).to.equal('waiting');
    expect(sessionError(() => executeMove(session, ann.userId, '1')).code).to.equal('conflict');
    const reloaded = stored(session);
    const lines = joinSession(reloaded, bob);
    expect(lines[0]).to.equal('Bob took seat 2');
    expect(reloaded.status).to.equal('playing');
    expect(sessionError(() => joinSession(reloaded, { userId: 'u-cid', name: 'Cid' })).code).to.equal('conflict');
    expect(sessionError(() => executeMove(reloaded, bob.userId, '1')).message).to.match(/not your move: waiting for Player 1 \(Ann\)/);
    expect(sessionError(() => executeMove(reloaded, 'u-cid', '1')).code).to.equal('forbidden');
    executeMove(stored(reloaded), ann.userId, 'play_all_treasures');
  });

  it('each view shows only the viewer\'s own hand; spectators see none and have no options', () => {
    const { session } = createSession({ gameId: 'g-3', host: ann, seats: [{ type: 'me' }, { type: 'open' }], seed: 4, now: 0 });
    joinSession(session, bob);
    const annView = viewFor(session, ann.userId, { message: '' });
    expect(annView.gameState!.players[0].hand).to.have.length(5);
    expect(annView.gameState!.players[1].hand).to.equal(undefined);
    const spectator = viewFor(session, 'u-watcher', { message: '', detail: 'minimal' });
    expect(spectator).to.deep.include({ yourSeat: null, options: [], validMoves: [], gameState: null });
    expect(JSON.stringify(viewFor(session, 'u-watcher', { message: '' }))).to.not.include('"hand"');
  });

  it('a bad move or chain changes nothing and says why, with the valid moves', () => {
    const { session } = createSession({ gameId: 'g-4', host: ann, seats: [{ type: 'me' }, { type: 'bot', bot: 'big-money' }], seed: 2, now: 0 });
    const before = JSON.stringify(session);
    const error = sessionError(() => executeMove(session, ann.userId, '1, 99'));
    expect(error.code).to.equal('bad_request');
    expect(error.message).to.match(/^Step 2 \("99"\): Invalid selection: 99\. Valid range is 1-\d+\./);
    expect(error.details.validMoves).to.be.an('array').that.is.not.empty;
    expect(JSON.stringify(session)).to.equal(before);
  });

  it('resigning ends the game for the others; only the host ends it for everyone', () => {
    const { session } = createSession({ gameId: 'g-5', host: ann, seats: [{ type: 'me' }, { type: 'open' }], seed: 1, now: 0 });
    joinSession(session, bob);
    expect(sessionError(() => endSession(session, bob.userId)).code).to.equal('forbidden');
    resign(session, bob.userId);
    const view = viewFor(session, ann.userId, { message: '' });
    expect(view).to.deep.include({ status: 'over', gameOver: true });
    expect(view.result).to.deep.include({ reason: 'resigned', winners: [0] });
    expect(summaryOf(session, ann.userId)).to.deep.include({ gameId: 'g-5', status: 'over', openSeats: 0 });
    expect(sessionError(() => endSession(session, ann.userId)).code).to.equal('conflict');
  });

  it('refuses impossible setups with a clear reason', () => {
    expect(sessionError(() => createSession({ gameId: 'g', host: ann, seats: [{ type: 'me' }], seed: 1, now: 0 })).message).to.match(/2 to 4 seats/);
    expect(sessionError(() => createSession({ gameId: 'g', host: ann, seats: [{ type: 'me' }, { type: 'me' }], seed: 1, now: 0 })).message).to.match(/only one seat/);
    expect(sessionError(() => createSession({ gameId: 'g', host: ann, seats: [{ type: 'me' }, { type: 'bot', bot: 'nobody' }], seed: 1, now: 0 })).message).to.match(/unknown bot 'nobody'/);
    expect(sessionError(() => createSession({ gameId: 'g', host: ann, seats: [{ type: 'me' }, { type: 'open' }], kingdom: 'No Such Preset', seed: 1, now: 0 })).code).to.equal('bad_request');
  });

  it('two bots and a person play a whole game to its end through the session', () => {
    const { session } = createSession({ gameId: 'g-6', host: ann, seats: [{ type: 'me' }, { type: 'bot', bot: 'smithy-bm' }, { type: 'bot', bot: 'witch' }], kingdom: 'random', seed: 77, now: 0 });
    for (let i = 0; i < 3000 && session.status === 'playing'; i++) executeMove(session, ann.userId, '1');
    expect(session.status).to.equal('over');
    const view = viewFor(session, ann.userId, { message: '' });
    expect(view.result!.scores).to.have.length(3);
  });
});
