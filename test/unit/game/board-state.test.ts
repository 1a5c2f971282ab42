import { expect } from 'chai';
import { createSession, executeMove, viewFor, type GameSession } from '../../../actors/game/session.js';
import { boardReducer, initialBoard, type BoardState } from '../../../web/src/views/dominion/board-state.js';
import type { GameView } from '../../../web/src/views/dominion/game-api.js';

const ann = { userId: 'u-ann', name: 'Ann' };

/** The view the API sends Ann now (answers and feed `view` events are built the same way). */
const viewNow = (session: GameSession): GameView => JSON.parse(JSON.stringify(viewFor(session, ann.userId, { message: '' }))) as GameView;

describe('the Dominion board reducer (web/src/views/dominion/board-state.ts)', function () {
  /** Ann against a bot, on the board from a snapshot at feed position 5-0; two moves played after it. */
  function twoMovesIn() {
    const { session } = createSession({ gameId: 'g-board', host: ann, seats: [{ type: 'me' }, { type: 'bot', bot: 'bmu' }], seed: 3, now: 0 });
    let board: BoardState = boardReducer(initialBoard, { type: 'snapshot', id: '5-0', view: viewNow(session) });
    executeMove(session, ann.userId, 'play_all_treasures');
    const first = viewNow(session);
    executeMove(session, ann.userId, 'end_turn');
    const second = viewNow(session);
    expect(second.moves).to.be.greaterThan(first.moves);
    return { board, first, second, apply: (action: Parameters<typeof boardReducer>[1]) => (board = boardReducer(board, action)) };
  }

  it('keeps the answer to a later move when the feed brings the view of an earlier one afterwards', function () {
    const { first, second, apply } = twoMovesIn();
    apply({ type: 'answer', view: first, sinceFeedId: undefined });
    const answered = apply({ type: 'answer', view: second, sinceFeedId: undefined });
    expect(answered.view).to.deep.equal(second);
    // The first move's view, late on the feed: older than the board, so not shown.
    const late = apply({ type: 'view', id: '6-0', view: first });
    expect(late.view).to.deep.equal(second);
    expect(late.version).to.equal(answered.version);
    // The feed's view of the second move is shown (the same game, the feed's copy).
    const caughtUp = apply({ type: 'view', id: '7-0', view: { ...second, message: 'The game changed' } });
    expect(caughtUp.view?.message).to.equal('The game changed');
    expect(caughtUp.lastFeedId).to.equal('7-0');
  });

  it('drops an answer older than the view the feed already brought', function () {
    const { first, second, apply } = twoMovesIn();
    apply({ type: 'view', id: '6-0', view: second });
    const after = apply({ type: 'answer', view: first, sinceFeedId: '6-0' });
    expect(after.view).to.deep.equal(second);
  });

  it('still ignores views replayed from before the snapshot, and answers sent before a feed event', function () {
    const { board, first, apply } = twoMovesIn();
    expect(apply({ type: 'view', id: '4-0', view: first }).view).to.deep.equal(board.view);
    apply({ type: 'view', id: '6-0', view: first });
    expect(apply({ type: 'answer', view: first, sinceFeedId: '5-0' }).lastFeedId).to.equal('6-0');
  });
});
