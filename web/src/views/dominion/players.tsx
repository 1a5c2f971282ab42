/** Everyone at the table: who they are, what they hold (as counts) and, when visible, their points. */
import type { GameView } from './game-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

export function Players({ view }: { view: GameView }) {
  const state = view.gameState;
  return (
    <section class="panel dominion-players" aria-labelledby="players-title">
      <h2 id="players-title">Players</h2>
      <ScrollBox label="Players table, scrolls sideways">
        <table aria-labelledby="players-title">
          <thead>
            <tr>
              <th scope="col">Player</th>
              <th scope="col" class="num">Hand</th>
              <th scope="col" class="num">Deck</th>
              <th scope="col" class="num">Discard</th>
              <th scope="col" class="num">VP</th>
            </tr>
          </thead>
          <tbody>
            {view.seats.map((seat) => {
              const player = state?.players[seat.seat];
              const moving = view.toMove === seat.seat;
              return (
                <tr key={seat.seat} data-seat={seat.seat} class={moving ? 'to-move' : undefined}>
                  <th scope="row">
                    {seat.label} <span class="seat-name">{seat.name}</span>
                    {seat.you ? <strong> (you)</strong> : null}
                    {moving ? <span class="to-move-mark"> · to move</span> : null}
                  </th>
                  <td class="num">{player?.handCount ?? '—'}</td>
                  <td class="num">{player?.deckCount ?? '—'}</td>
                  <td class="num">
                    {player?.discardCount ?? '—'}
                    {player?.discardTop ? <span class="discard-top">{player.discardTop}</span> : null}
                  </td>
                  <td class="num">{player?.victoryPoints ?? '?'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
