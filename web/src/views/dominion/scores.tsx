/** The end of a game: the summary and everyone's points and turns, winners marked. */
import type { GameView } from './game-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

const ENDINGS: Record<string, string> = {
  provinces: 'the Province pile ran out',
  piles: 'three Supply piles ran out',
  turn_limit: 'the turn limit was reached',
  resigned: 'a player resigned',
};

export function Scores({ view }: { view: GameView }) {
  const result = view.result;
  if (!result) {
    return (
      <section class="panel dominion-scores" data-testid="scores" aria-labelledby="scores-title">
        <h2 id="scores-title">Game over</h2>
        <p>{view.status === 'ended' ? 'The host ended the game before it was played out.' : view.message}</p>
      </section>
    );
  }
  return (
    <section class="panel dominion-scores" data-testid="scores" aria-labelledby="scores-title">
      <h2 id="scores-title">Final scores</h2>
      {result.summary ? <p class="scores-summary">{result.summary}</p> : null}
      <ScrollBox label="Scores table, scrolls sideways">
        <table aria-labelledby="scores-title">
          <thead>
            <tr>
              <th scope="col">Player</th>
              <th scope="col" class="num">VP</th>
              <th scope="col" class="num">Turns</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {view.seats.map((seat) => {
              const won = result.winners.includes(seat.seat);
              return (
                <tr key={seat.seat} data-seat={seat.seat} data-score={result.scores[seat.seat]} class={won ? 'winner' : undefined}>
                  <th scope="row">
                    {seat.label} <span class="seat-name">{seat.name}</span>
                    {seat.you ? <strong> (you)</strong> : null}
                  </th>
                  <td class="num">{result.scores[seat.seat]}</td>
                  <td class="num">{result.turns[seat.seat]}</td>
                  <td>{won ? (result.winners.length > 1 ? 'shared win' : 'winner') : ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollBox>
      <p class="muted">The game ended because {ENDINGS[result.reason] ?? result.reason}.</p>
    </section>
  );
}
