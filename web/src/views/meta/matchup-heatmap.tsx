/**
 * The matchup matrix as a heat map: an HTML table (row archetype's win rate against the column
 * archetype) whose cells are tinted from red (losing) through grey to blue (winning). The tints are
 * light, so the dark cell text keeps a contrast above 4.5:1, and the numbers carry the meaning.
 */
import { useState } from 'preact/hooks';
import { hrefOf } from '../../route.js';
import type { MatchupCell, MatchupMatrix } from './meta-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

const SIZES = [8, 12, 16, 24];

const LOW = [0xfc, 0xa5, 0xa5];
const EVEN = [0xf4, 0xf4, 0xf5];
const HIGH = [0x93, 0xc5, 0xfd];

/** 25 % or less is fully red, 75 % or more fully blue. */
export function heatColour(winRate: number): string {
  const t = Math.max(-1, Math.min(1, (winRate - 50) / 25));
  const towards = t < 0 ? LOW : HIGH;
  const mix = EVEN.map((channel, i) => Math.round(channel + (towards[i]! - channel) * Math.abs(t)));
  return `rgb(${mix.join(', ')})`;
}

function Cell({ cell, column, mirror }: { cell: MatchupCell | undefined; column: string; mirror: boolean }) {
  const className = mirror ? 'heat-cell mirror' : 'heat-cell';
  if (!cell || cell.match_count === 0) {
    return (
      <td class={className} data-column={column} data-win-rate="" data-matches="0">
        <span class="visually-hidden">no matches</span>
      </td>
    );
  }
  return (
    <td
      class={className}
      data-column={column}
      style={cell.win_rate === null ? undefined : { backgroundColor: heatColour(cell.win_rate) }}
      data-win-rate={cell.win_rate ?? ''}
      data-matches={cell.match_count}
    >
      <span class="heat-rate">
        {cell.win_rate === null ? '—' : cell.win_rate}
        <span class="visually-hidden">{cell.win_rate === null ? ' too few matches for a win rate,' : '% win rate over'}</span>
      </span>
      <small>
        {cell.match_count}
        <span class="visually-hidden"> matches</span>
      </small>
    </td>
  );
}

export function MatchupHeatmap({ matrix, format }: { matrix: MatchupMatrix; format: string }) {
  const [size, setSize] = useState(12);
  const shown = matrix.archetypes.slice(0, size);
  const { period, matches, min_matches_for_win_rate: minimum } = matrix.metadata;

  return (
    <section aria-labelledby="meta-matrix-title" data-testid="meta-matrix">
      <h2 id="meta-matrix-title">Matchup matrix</h2>
      <p class="muted">
        {period.start} to {period.end}, {matches} matches. Each cell is the row archetype's win rate against the column archetype (small: the number
        of matches; a win rate needs {minimum}). Archetypes with the most matches first.
      </p>
      <div class="row">
        <div>
          <label for="matrix-size">Archetypes shown</label>
          <select id="matrix-size" value={String(Math.min(size, matrix.archetypes.length))} onChange={(e) => setSize(Number(e.currentTarget.value))}>
            {SIZES.filter((n) => n < matrix.archetypes.length).map((n) => (
              <option key={n} value={String(n)}>
                Top {n}
              </option>
            ))}
            <option value={String(matrix.archetypes.length)}>All {matrix.archetypes.length}</option>
          </select>
        </div>
        <p class="heat-legend" aria-hidden="true">
          <span>≤ 25 %</span>
          <span class="heat-scale" />
          <span>≥ 75 %</span>
        </p>
      </div>
      {matrix.archetypes.length === 0 ? (
        <p>No matches of this format in this window.</p>
      ) : (
        <ScrollBox label="Matchup matrix (scrolls sideways)">
          <table class="heatmap" aria-label={`${format} matchup win rates, row against column`} data-testid="meta-matrix-table">
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Archetype, against</span>
                </th>
                {shown.map((column) => (
                  <th scope="col" key={column} class="heat-column">
                    <span>{column}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => (
                <tr key={row} data-row={row}>
                  <th scope="row">
                    <a href={hrefOf('meta', format, row)}>{row}</a>
                  </th>
                  {shown.map((column) => (
                    <Cell key={column} column={column} cell={matrix.matrix[row]?.[column]} mirror={row === column} />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}
