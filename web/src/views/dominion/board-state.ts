/**
 * The board's state as events arrive, a pure reducer: the latest GameView and the game log. The feed is
 * read from its start (so the log has the whole game), which replays old `view` events too; the
 * snapshot's feed position tells them apart. A move's answer and the feed travel separately, so the
 * feed's view of an earlier move may arrive after the answer to a later one: a view with fewer moves
 * than the one shown is older, and is never shown. So the board never steps back to an older view.
 */
import type { GameUpdate, GameView } from './game-api.js';

export interface BoardState {
  view: GameView | undefined;
  /** The feed position the snapshot was taken at: replayed views at or before it are older. */
  snapshotId: string | undefined;
  /** Every public line of the game, in order, each feed `update` once. */
  log: string[];
  lastUpdateId: string | undefined;
  /** The last feed event applied: a move's own answer is older than any event after the click. */
  lastFeedId: string | undefined;
  /** Counts every change applied, so a re-render from a new event is observable (bench:web). */
  version: number;
}

export type BoardAction =
  | { type: 'snapshot'; id: string; view: GameView }
  | { type: 'update'; id: string; update: GameUpdate }
  | { type: 'view'; id: string; view: GameView }
  | { type: 'done'; id: string }
  /** The answer to this browser's own move or join, sent when the feed stood at `sinceFeedId`. */
  | { type: 'answer'; view: GameView; sinceFeedId: string | undefined }
  /** A spectator's fresh GET (spectators get no `view` events). */
  | { type: 'observed'; view: GameView };

export const initialBoard: BoardState = { view: undefined, snapshotId: undefined, log: [], lastUpdateId: undefined, lastFeedId: undefined, version: 0 };

/** Orders feed (Redis Stream) ids: "<ms>-<seq>". */
export function compareFeedIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

const after = (id: string, mark: string | undefined) => mark === undefined || compareFeedIds(id, mark) > 0;

/** True when `view` shows the game before the moves of the view on the board. */
const behind = (state: BoardState, view: GameView) => state.view !== undefined && view.moves < state.view.moves;

export function boardReducer(state: BoardState, action: BoardAction): BoardState {
  switch (action.type) {
    case 'snapshot':
      return { ...state, view: action.view, snapshotId: action.id, version: state.version + 1 };
    case 'update':
      if (!after(action.id, state.lastUpdateId)) return state;
      return {
        ...state,
        log: action.update.events.length ? [...state.log, ...action.update.events] : state.log,
        lastUpdateId: action.id,
        lastFeedId: action.id,
        version: state.version + 1,
      };
    case 'view':
      if (!after(action.id, state.snapshotId) || behind(state, action.view)) return state;
      return { ...state, view: action.view, lastFeedId: action.id, version: state.version + 1 };
    case 'done':
      return { ...state, lastFeedId: action.id };
    case 'answer':
      if (state.lastFeedId !== action.sinceFeedId || behind(state, action.view)) return state;
      return { ...state, view: action.view, version: state.version + 1 };
    case 'observed':
      if ((state.view !== undefined && state.view.yourSeat !== null) || behind(state, action.view)) return state;
      return { ...state, view: action.view, version: state.version + 1 };
  }
}
