/**
 * One archetype in the chosen windows: its figures from the rankings, its best and worst matchups,
 * and its record against every opponent (get_deck_matchup_stats over the current window).
 */
import { useEffect, useRef } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { hrefOf } from '../../route.js';
import { colours, percent, shareChange } from './figures.js';
import { fetchDeckMatchups, type DeckMatchups, type RankingRow } from './meta-api.js';
import { MatchupTable } from './matchup-table.js';

/** Best and worst need enough matches to mean something. */
const TELLING_MATCHES = 10;

function extremes(matchups: DeckMatchups) {
  const telling = matchups.matchup_stats.filter((row) => row.win_rate !== null && row.match_count >= TELLING_MATCHES);
  if (telling.length < 2) return undefined;
  const byRate = [...telling].sort((a, b) => b.win_rate! - a.win_rate!);
  return { best: byRate[0]!, worst: byRate.at(-1)! };
}

export function ArchetypeDetails({ format, archetype, row, days }: { format: string; archetype: string; row: RankingRow | undefined; days: number }) {
  const matchups = useAsync((signal) => fetchDeckMatchups(format, archetype, days, signal), [format, archetype, days]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [archetype]);
  const ends = matchups.data ? extremes(matchups.data) : undefined;

  return (
    <section class="panel archetype-details" aria-labelledby="archetype-title" data-testid="archetype-details">
      <div class="details-head">
        <h2 id="archetype-title" tabIndex={-1} ref={heading}>
          {archetype}
        </h2>
        <a href={hrefOf('meta', format)}>Close details</a>
      </div>
      {row ? (
        <dl class="figures">
          <div>
            <dt>Colours</dt>
            <dd>{colours(row.color_identity)}</dd>
          </div>
          <div>
            <dt>Share now</dt>
            <dd data-testid="details-share">{percent(row.meta_share_current)}</dd>
          </div>
          <div>
            <dt>Share before</dt>
            <dd>{percent(row.meta_share_previous)}</dd>
          </div>
          <div>
            <dt>Change</dt>
            <dd>{shareChange(row.meta_share_change)}</dd>
          </div>
          <div>
            <dt>Decks now</dt>
            <dd>{row.sample_size_current}</dd>
          </div>
          <div>
            <dt>Win rate now</dt>
            <dd>{percent(row.win_rate_current)}</dd>
          </div>
          <div>
            <dt>Win rate before</dt>
            <dd>{percent(row.win_rate_previous)}</dd>
          </div>
        </dl>
      ) : (
        <p class="muted">Not among the ranked archetypes of the current window.</p>
      )}
      <ErrorNote error={matchups.error} />
      {matchups.data ? (
        <>
          {ends ? (
            <p data-testid="details-extremes">
              Best matchup: <strong>{ends.best.opponent_archetype}</strong> ({percent(ends.best.win_rate)} over {ends.best.match_count}). Worst:{' '}
              <strong>{ends.worst.opponent_archetype}</strong> ({percent(ends.worst.win_rate)} over {ends.worst.match_count}). Among opponents with at least{' '}
              {TELLING_MATCHES} matches.
            </p>
          ) : null}
          <h3>Matchups</h3>
          <MatchupTable matchups={matchups.data} testId="details-matchups" />
        </>
      ) : matchups.loading ? (
        <p role="status">Loading matchups…</p>
      ) : null}
    </section>
  );
}
