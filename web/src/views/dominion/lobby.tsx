/**
 * The Dominion lobby (#/dominion): start a game against bots and/or with open seats for people, join a
 * game by its id, and the list of your games and of games waiting for players.
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { hrefOf, navigate } from '../../route.js';
import { BOT_NAMES, joinGame, KINGDOM_PRESETS, listGames, startGame, type GameSummary, type SeatRequest } from './game-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

type SeatChoice = SeatRequest | 'none';

const SEAT_LABELS: Array<[SeatChoice, string]> = [
  ...BOT_NAMES.map((bot): [SeatChoice, string] => [`bot:${bot}`, `Bot: ${bot}`]),
  ['open', 'Open seat (a person joins by id)'],
];

function NewGameForm() {
  const [seats, setSeats] = useState<SeatChoice[]>(['bot:bmu', 'none', 'none']);
  const [kingdom, setKingdom] = useState<string>(KINGDOM_PRESETS[0]);
  const [seed, setSeed] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [starting, setStarting] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const others = seats.filter((s): s is SeatRequest => s !== 'none');
    const seedNumber = seed.trim() === '' ? undefined : Number(seed);
    if (seedNumber !== undefined && !(Number.isInteger(seedNumber) && seedNumber >= 0)) {
      setError('The seed is a whole number of 0 or more (or leave it empty).');
      return;
    }
    setStarting(true);
    try {
      const view = await startGame({ seats: ['me', ...others], kingdom, ...(seedNumber === undefined ? {} : { seed: seedNumber }) });
      navigate('dominion', view.gameId);
    } catch (failure) {
      setError(failure);
    } finally {
      setStarting(false);
    }
  };

  const setSeat = (i: number, value: SeatChoice) => setSeats((now) => now.map((s, j) => (j === i ? value : s)));

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-game-title">
      <h2 id="new-game-title">Start a game</h2>
      <p class="muted">You take seat 1. Seat 2 is required; seats 3 and 4 are optional.</p>
      <div class="row">
        {seats.map((seat, i) => (
          <div key={i}>
            <label for={`seat-${i + 2}`}>Seat {i + 2}</label>
            <select id={`seat-${i + 2}`} value={seat} onChange={(e) => setSeat(i, e.currentTarget.value as SeatChoice)}>
              {i > 0 ? <option value="none">Nobody</option> : null}
              {SEAT_LABELS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
      <div class="row">
        <div>
          <label for="kingdom">Kingdom</label>
          <select id="kingdom" value={kingdom} onChange={(e) => setKingdom(e.currentTarget.value)}>
            {KINGDOM_PRESETS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
            <option value="random">Random (10 cards)</option>
          </select>
        </div>
        <div>
          <label for="seed">Seed (optional)</label>
          <input id="seed" type="text" inputMode="numeric" pattern="[0-9]*" value={seed} onInput={(e) => setSeed(e.currentTarget.value)} aria-describedby="seed-help" />
        </div>
        <button type="submit" disabled={starting}>
          {starting ? 'Starting…' : 'Start game'}
        </button>
      </div>
      <p id="seed-help" class="muted">
        The same seed and moves replay the same game.
      </p>
      <ErrorNote error={error} />
    </form>
  );
}

function JoinForm() {
  const [gameId, setGameId] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [joining, setJoining] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const id = gameId.trim();
    if (!id) return;
    setError(undefined);
    setJoining(true);
    try {
      await joinGame(id);
      navigate('dominion', id);
    } catch (failure) {
      setError(failure);
    } finally {
      setJoining(false);
    }
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="join-title">
      <h2 id="join-title">Join a game</h2>
      <div class="row">
        <div>
          <label for="join-id">Game id</label>
          <input id="join-id" type="text" autoComplete="off" spellcheck={false} placeholder="g-0123456789ab" value={gameId} onInput={(e) => setGameId(e.currentTarget.value)} />
        </div>
        <button type="submit" disabled={joining || !gameId.trim()}>
          Join
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

const STATUS_TEXT: Record<GameSummary['status'], string> = { waiting: 'waiting for players', playing: 'playing', over: 'over', ended: 'ended' };

function GameList() {
  const games = useAsync((signal) => listGames(signal), []);
  const [joinError, setJoinError] = useState<unknown>(undefined);
  const rows = [...(games.data?.games ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const join = async (gameId: string) => {
    setJoinError(undefined);
    try {
      await joinGame(gameId);
      navigate('dominion', gameId);
    } catch (failure) {
      setJoinError(failure);
    }
  };
  return (
    <section aria-labelledby="games-title">
      <div class="row">
        <h2 id="games-title">Your games and open games</h2>
        <button type="button" class="secondary" onClick={games.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={games.error ?? joinError} />
      {games.loading && !games.data ? <p role="status">Loading games…</p> : null}
      {games.data && rows.length === 0 ? <p class="muted">No games yet: start one above.</p> : null}
      {rows.length > 0 ? (
        <ScrollBox label="Your games and games waiting for players">
          <table aria-labelledby="games-title" data-testid="game-list">
            <thead>
              <tr>
                <th scope="col">Game</th>
                <th scope="col">Status</th>
                <th scope="col">Players</th>
                <th scope="col" class="num">Turn</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((game) => {
                const seated = game.seats.some((s) => s.you);
                return (
                  <tr key={game.gameId} data-game-id={game.gameId}>
                    <td>
                      <a class="game-id" href={hrefOf('dominion', game.gameId)}>
                        {game.gameId}
                      </a>
                    </td>
                    <td>{STATUS_TEXT[game.status]}</td>
                    <td>{game.seats.map((s) => (s.you ? `${s.name} (you)` : s.name)).join(', ')}</td>
                    <td class="num">{game.turn}</td>
                    <td>
                      {game.status === 'waiting' && !seated && game.openSeats > 0 ? (
                        <button type="button" onClick={() => void join(game.gameId)} aria-label={`Join game ${game.gameId}`}>
                          Join
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollBox>
      ) : null}
    </section>
  );
}

export function Lobby() {
  return (
    <div class="dominion-lobby" data-testid="dominion-lobby">
      <h1>Dominion</h1>
      <p class="muted">The base game for 2–4 players: play bots, or open seats for people who join with the game id.</p>
      <NewGameForm />
      <JoinForm />
      <GameList />
    </div>
  );
}
