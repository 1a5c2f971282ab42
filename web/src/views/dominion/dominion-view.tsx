/**
 * Dominion: the lobby at #/dominion, a game's live board at #/dominion/<gameId>. Both talk to troupe
 * only through the /games HTTP routes and the game's SSE feed.
 */
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import type { ViewProps } from '../../main.js';
import { Board } from './board.js';
import { CardTableContext, loadCardTable } from './cards.js';
import { Lobby } from './lobby.js';

export function DominionView({ parts }: ViewProps) {
  const gameId = parts[0];
  const cards = useAsync(() => loadCardTable(), []);
  if (!gameId) return <Lobby />;
  if (cards.error) return <ErrorNote error={cards.error} />;
  if (!cards.data) return <p role="status">Loading the card table…</p>;
  // Keyed by game: a new game gets a fresh board and feed, not the last one's state.
  return (
    <CardTableContext.Provider value={cards.data}>
      <Board key={gameId} gameId={gameId} />
    </CardTableContext.Provider>
  );
}
