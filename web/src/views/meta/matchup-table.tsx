/** One archetype's record against each opponent (get_deck_matchup_stats), by match count. */
import { useState } from 'preact/hooks';
import { percent, record } from './figures.js';
import type { DeckMatchups } from './meta-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

/** The opponents met most; the long tail is one click away. */
const SHOWN = 12;

export function MatchupTable({ matchups, testId }: { matchups: DeckMatchups; testId: string }) {
  const [showAll, setShowAll] = useState(false);
  const { overall } = matchups;
  const rows = showAll ? matchups.matchup_stats : matchups.matchup_stats.slice(0, SHOWN);
  return (
    <>
      <p data-testid={`${testId}-overall`}>
        Overall: <strong>{percent(overall.win_rate)}</strong> over {overall.match_count} matches ({record(overall)} wins–losses–draws),{' '}
        {matchups.metadata.period.start} to {matchups.metadata.period.end}.
      </p>
      {matchups.matchup_stats.length === 0 ? (
        <p>No matches in this window.</p>
      ) : (
        <ScrollBox label={`${matchups.archetype} matchups (scrolls sideways)`} class="matchup-table">
          <table aria-label={`${matchups.archetype} against each archetype`} data-testid={testId}>
            <thead>
              <tr>
                <th scope="col">Opponent</th>
                <th scope="col" class="num">Win rate</th>
                <th scope="col" class="num">
                  <span aria-hidden="true">W–L–D</span>
                  <span class="visually-hidden">Wins, losses, draws</span>
                </th>
                <th scope="col" class="num">Matches</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.opponent_archetype} data-opponent={row.opponent_archetype}>
                  <th scope="row">{row.opponent_archetype}</th>
                  <td class="num" data-cell="win-rate">{percent(row.win_rate)}</td>
                  <td class="num">{record(row)}</td>
                  <td class="num" data-cell="matches">{row.match_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {matchups.matchup_stats.length > SHOWN ? (
        <button type="button" class="secondary" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
          {showAll ? `Show the ${SHOWN} most met` : `Show all ${matchups.matchup_stats.length} opponents`}
        </button>
      ) : null}
    </>
  );
}
