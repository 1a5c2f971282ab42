/**
 * One game's live board: the snapshot (the view now and where the feed stands), then the feed read from
 * its start with Last-Event-ID resume, so the log holds the whole game, a dropped connection loses and
 * repeats nothing, and a second browser in the same game sees every move without reloading.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { openEventStream, type StreamEvent, type StreamStatus } from '../../sse.js';
import { boardReducer, compareFeedIds, initialBoard, type BoardState } from './board-state.js';
import { gameEventsPath, joinGame, makeMove, observeGame, type GameUpdate, type GameView } from './game-api.js';

/** The Last-Event-ID before the feed's first entry: the replay starts at the game's creation. */
const FEED_START = '0-0';

export interface GameFeed {
  board: BoardState;
  status: StreamStatus | undefined;
  /** Loading or following the game failed (an unknown id, a refused key). */
  error: unknown;
  /** Sends a move (an option's command or typed text); rejects with the API's refusal. */
  move(command: string): Promise<void>;
  join(): Promise<void>;
}

/** The view now and its feed position: a short stream that ends at its `snapshot` event. */
async function readSnapshot(gameId: string, signal: AbortSignal): Promise<{ id: string; view: GameView }> {
  let snapshot: { id: string; view: GameView } | undefined;
  const stream = openEventStream({
    path: gameEventsPath(gameId),
    terminal: ['snapshot', 'done'],
    signal,
    onEvent: (event) => {
      if (event.event === 'snapshot') snapshot = { id: event.id ?? FEED_START, view: event.data as GameView };
    },
  });
  await stream.finished;
  if (!snapshot) throw new Error(`game ${gameId} sent no snapshot`);
  return snapshot;
}

export function useGameFeed(gameId: string): GameFeed {
  const [board, dispatch] = useReducer(boardReducer, initialBoard);
  const [status, setStatus] = useState<StreamStatus | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const boardRef = useRef(board);
  boardRef.current = board;
  const observer = useRef({ running: false, again: false });

  // Spectators get public updates only: they fetch their view again after new ones, one request at a
  // time (updates that arrive meanwhile make one more).
  const observe = useCallback(
    (signal: AbortSignal) => {
      const state = observer.current;
      if (state.running) {
        state.again = true;
        return;
      }
      state.running = true;
      void (async () => {
        do {
          state.again = false;
          const view = await observeGame(gameId, signal).catch(() => undefined);
          if (view && !signal.aborted) dispatch({ type: 'observed', view });
        } while (state.again && !signal.aborted);
        state.running = false;
      })();
    },
    [gameId],
  );

  useEffect(() => {
    const stop = new AbortController();
    setError(undefined);
    setStatus('connecting');
    let snapshotId = FEED_START;
    const onEvent = (event: StreamEvent) => {
      const id = event.id ?? '';
      if (event.event === 'update') dispatch({ type: 'update', id, update: event.data as GameUpdate });
      else if (event.event === 'view') dispatch({ type: 'view', id, view: event.data as GameView });
      else if (event.event === 'done') dispatch({ type: 'done', id });
      const watching = boardRef.current.view?.yourSeat === null;
      if (watching && (event.event === 'update' || event.event === 'done') && compareFeedIds(id, snapshotId) > 0) observe(stop.signal);
    };
    (async () => {
      const snapshot = await readSnapshot(gameId, stop.signal);
      if (stop.signal.aborted) return;
      snapshotId = snapshot.id;
      dispatch({ type: 'snapshot', id: snapshot.id, view: snapshot.view });
      const live = openEventStream({
        path: gameEventsPath(gameId),
        headers: { 'last-event-id': FEED_START },
        terminal: ['done'],
        signal: stop.signal,
        onEvent,
        onStatus: setStatus,
      });
      await live.finished;
    })().catch((failure: unknown) => {
      if (stop.signal.aborted) return;
      setStatus('closed');
      setError(failure);
    });
    return () => stop.abort();
  }, [gameId]);

  const move = useCallback(
    async (command: string) => {
      const sinceFeedId = boardRef.current.lastFeedId;
      const view = await makeMove(gameId, command);
      dispatch({ type: 'answer', view, sinceFeedId });
    },
    [gameId],
  );

  const join = useCallback(async () => {
    const sinceFeedId = boardRef.current.lastFeedId;
    const view = await joinGame(gameId);
    dispatch({ type: 'answer', view, sinceFeedId });
  }, [gameId]);

  return { board, status, error, move, join };
}
