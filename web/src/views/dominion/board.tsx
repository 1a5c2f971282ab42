/**
 * One game's board (#/dominion/<gameId>): whose turn it is, any pending decision, your options, your
 * hand, the cards in play, the Supply, the players, the log and, at the end, the scores. It follows the
 * game's SSE feed, so other players' moves appear as they happen.
 */
import { useRef, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { StreamStatusBadge } from '../../components/stream-status.js';
import { hrefOf } from '../../route.js';
import { CardRow } from './card.js';
import type { GameOption, GameView } from './game-api.js';
import { GameLog } from './game-log.js';
import { OptionsList } from './options-list.js';
import { PendingDecision } from './pending-decision.js';
import { Players } from './players.js';
import { Scores } from './scores.js';
import { Supply } from './supply.js';
import { useGameFeed } from './use-game-feed.js';

function TurnLine({ view }: { view: GameView }) {
  const state = view.gameState;
  if (!state || view.status !== 'playing') return null;
  const current = view.seats[state.currentPlayer];
  const mover = view.toMove === null ? undefined : view.seats[view.toMove];
  return (
    <p class="turn-line" data-testid="turn-line">
      <strong>Turn {state.turn}</strong> · {current ? `${current.label} (${current.name})` : ''} · {state.phase} phase · {state.actions} action
      {state.actions === 1 ? '' : 's'} · {state.buys} buy{state.buys === 1 ? '' : 's'} · ${state.coins}
      <br />
      {mover?.you ? <strong class="your-move">Your move</strong> : mover ? <span>Waiting for {mover.label} ({mover.name})</span> : null}
    </p>
  );
}

function Waiting({ view, onJoin, busy }: { view: GameView; onJoin: () => void; busy: boolean }) {
  const open = view.seats.filter((s) => s.type === 'open').length;
  return (
    <section class="panel" aria-labelledby="waiting-title" data-testid="waiting">
      <h2 id="waiting-title">Waiting for players</h2>
      <p>
        {open} open seat{open === 1 ? '' : 's'}. Others join with the game id <code data-testid="share-id">{view.gameId}</code> (Dominion → Join a game); the game
        starts when every seat is taken.
      </p>
      {navigator.clipboard ? (
        <button type="button" class="secondary" onClick={() => void navigator.clipboard.writeText(view.gameId)}>
          Copy game id
        </button>
      ) : null}
      {view.yourSeat === null ? (
        <button type="button" onClick={onJoin} disabled={busy}>
          Join this game
        </button>
      ) : null}
    </section>
  );
}

function PlayArea({ view }: { view: GameView }) {
  const players = (view.gameState?.players ?? []).filter((p) => p.inPlay.length > 0 || p.aside.length > 0);
  return (
    <section class="panel dominion-play" aria-labelledby="play-title">
      <h2 id="play-title">In play</h2>
      {players.length === 0 ? <p class="muted">No cards in play.</p> : null}
      {players.map((player) => {
        const label = view.seats[player.index]?.label ?? `Player ${player.index + 1}`;
        return (
          <div key={player.index} data-testid="in-play" data-seat={player.index}>
            <h3>{label}</h3>
            <CardRow cards={player.inPlay} label={`${label}: cards in play`} empty="" />
            {player.aside.length > 0 ? <CardRow cards={player.aside} label={`${label}: set aside or revealed`} empty="" /> : null}
          </div>
        );
      })}
    </section>
  );
}

export function Board({ gameId }: { gameId: string }) {
  const feed = useGameFeed(gameId);
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const [moveError, setMoveError] = useState<unknown>(undefined);
  const { board } = feed;
  const view = board.view;

  // One request at a time: a fast second click or key must not act on the options the first replaced.
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    if (busyRef.current) return false;
    busyRef.current = true;
    setBusy(true);
    setMoveError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setMoveError(failure);
      return false;
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  const send = (command: string) => run(() => feed.move(command));
  // The option's command rather than its number: a stale list can then never pick a different move.
  const pick = (option: GameOption) => void send(option.command);

  const header = (
    <div class="row dominion-head">
      <h1 id="board-title">
        Dominion <span class="game-id">{gameId}</span>
      </h1>
      <StreamStatusBadge status={feed.status} />
      <a href={hrefOf('dominion')}>All games</a>
    </div>
  );
  if (!view) {
    return (
      <>
        {header}
        {feed.error ? <ErrorNote error={feed.error} /> : <p role="status">Loading the game…</p>}
      </>
    );
  }

  const state = view.gameState;
  const me = view.yourSeat === null ? undefined : state?.players[view.yourSeat];
  const hand = me?.hand ?? [];
  const pending = view.pendingEffect;
  const myDecision = pending !== null && pending.player === view.yourSeat;

  return (
    <section
      class="dominion-board"
      data-testid="dominion-board"
      data-game-id={view.gameId}
      data-status={view.status}
      data-turn={state?.turn ?? 0}
      data-log-length={board.log.length}
      data-version={board.version}
      data-busy={busy ? 'true' : 'false'}
      data-your-move={view.toMove !== null && view.toMove === view.yourSeat ? 'true' : 'false'}
      aria-labelledby="board-title"
    >
      {header}
      <ErrorNote error={feed.error} />
      {view.yourSeat === null && view.status !== 'waiting' ? <p class="muted">You are watching this game.</p> : null}
      <TurnLine view={view} />
      {view.status === 'waiting' ? <Waiting view={view} busy={busy} onJoin={() => void run(feed.join)} /> : null}
      {view.gameOver ? <Scores view={view} /> : null}
      <ErrorNote error={moveError} />

      <div class="dominion-layout">
        <div class="dominion-main">
          {pending ? <PendingDecision pending={pending} mine={myDecision} hand={hand} busy={busy} onSubmit={(command) => void send(command)} /> : null}
          {view.options.length > 0 ? <OptionsList options={view.options} note={view.optionsNote} busy={busy} onPick={pick} onCommand={send} /> : null}
          {me ? (
            <section class="panel dominion-hand" aria-labelledby="hand-title">
              <h2 id="hand-title">Your hand</h2>
              <CardRow cards={hand} label="Your hand" empty="Your hand is empty." />
              <p class="muted">
                Deck {me.deckCount} · discard {me.discardCount} · {me.victoryPoints ?? 0} VP
              </p>
            </section>
          ) : null}
          {state ? <PlayArea view={view} /> : null}
        </div>
        <div class="dominion-side">
          {state ? <Supply state={state} options={view.options} busy={busy} onPick={pick} /> : null}
          <Players view={view} />
          <GameLog lines={board.log} />
        </div>
      </div>
    </section>
  );
}
