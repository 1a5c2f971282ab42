/**
 * The meta rankings: a bar chart of the leading archetypes' share now and before, the weekly trend,
 * and the full table (which is also the charts' text alternative). Archetype names link to details.
 */
import type { ChartConfiguration } from 'chart.js';
import { useMemo, useState } from 'preact/hooks';
import { hrefOf } from '../../route.js';
import { ChartCanvas, SERIES_COLOURS } from './chart-canvas.js';
import { colours, percent, shareChange } from './figures.js';
import type { Rankings } from './meta-api.js';
import { ScrollBox } from '../../components/scroll-box.js';
import { TrendChart } from './trend-chart.js';

const CHARTED = 10;
const TABLE_ROWS = 15;

function shareChartConfig(rankings: Rankings): ChartConfiguration {
  const top = rankings.data.slice(0, CHARTED);
  const { current_period: now, previous_period: before } = rankings.metadata;
  return {
    type: 'bar',
    data: {
      labels: top.map((row) => row.archetype),
      datasets: [
        { label: `Now (${now.start} – ${now.end})`, data: top.map((row) => row.meta_share_current), backgroundColor: SERIES_COLOURS[0] },
        { label: `Before (${before.start} – ${before.end})`, data: top.map((row) => row.meta_share_previous), backgroundColor: '#71717a' },
      ],
    },
    options: {
      indexAxis: 'y',
      scales: { x: { title: { display: true, text: 'Meta share (%)' }, beginAtZero: true } },
      plugins: { tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${item.parsed.x}%` } } },
    },
  };
}

export function RankingsSection({ rankings, format, selected }: { rankings: Rankings; format: string; selected: string | undefined }) {
  const [showAll, setShowAll] = useState(false);
  const config = useMemo(() => shareChartConfig(rankings), [rankings]);
  const { current_period: now, previous_period: before } = rankings.metadata;
  const rows = showAll ? rankings.data : rankings.data.slice(0, TABLE_ROWS);
  const charted = Math.min(CHARTED, rankings.data.length);

  return (
    <section aria-labelledby="meta-rankings-title" data-testid="meta-rankings">
      <h2 id="meta-rankings-title">Meta rankings</h2>
      <p class="muted" data-testid="meta-periods">
        Now: {now.start} to {now.end} ({now.decks} decks, {now.matches} matches). Before: {before.start} to {before.end} ({before.decks} decks,{' '}
        {before.matches} matches).
      </p>
      {rankings.data.length === 0 ? (
        <p>No decks of this format in these windows.</p>
      ) : (
        <>
          <div class="meta-charts">
            <figure>
              <figcaption>Share of the top {charted} archetypes, now and before</figcaption>
              <ChartCanvas
                config={config}
                testId="meta-share-chart"
                tall
                label={`Bar chart of the meta share of the top ${charted} ${format} archetypes in the current and previous windows; the numbers are in the rankings table below.`}
              />
            </figure>
            <TrendChart format={format} archetypes={rankings.data.slice(0, 5).map((row) => row.archetype)} currentDays={now.days} previousDays={before.days} />
          </div>
          <ScrollBox label="Meta rankings (scrolls sideways)">
            <table aria-label={`${format} meta rankings`} data-testid="meta-rankings-table" class="meta-rankings">
              <thead>
                <tr>
                  <th scope="col" class="num">#</th>
                  <th scope="col">Archetype</th>
                  <th scope="col">Colours</th>
                  <th scope="col" class="num">Share now</th>
                  <th scope="col" class="num">Share before</th>
                  <th scope="col" class="num">Change</th>
                  <th scope="col" class="num">Decks now</th>
                  <th scope="col" class="num">Win rate now</th>
                  <th scope="col" class="num">Win rate before</th>
                  <th scope="col" class="num">Matches now</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row, index) => (
                  <tr key={row.archetype} data-archetype={row.archetype} aria-current={row.archetype === selected ? 'true' : undefined}>
                    <td class="num">{index + 1}</td>
                    <th scope="row">
                      <a href={hrefOf('meta', format, row.archetype)} data-testid="archetype-link">
                        {row.archetype}
                      </a>
                    </th>
                    <td>{colours(row.color_identity)}</td>
                    <td class="num" data-cell="share-now">{percent(row.meta_share_current)}</td>
                    <td class="num" data-cell="share-before">{percent(row.meta_share_previous)}</td>
                    <td class={`num ${row.meta_share_change > 0 ? 'ok' : row.meta_share_change < 0 ? 'error' : ''}`} data-cell="share-change">
                      {shareChange(row.meta_share_change)}
                    </td>
                    <td class="num">{row.sample_size_current}</td>
                    <td class="num" data-cell="win-rate-now">{percent(row.win_rate_current)}</td>
                    <td class="num">{percent(row.win_rate_previous)}</td>
                    <td class="num">{row.match_count_current}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          {rankings.data.length > TABLE_ROWS ? (
            <button type="button" class="secondary" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
              {showAll ? `Show the top ${TABLE_ROWS}` : `Show all ${rankings.data.length} archetypes`}
            </button>
          ) : null}
          <p class="muted">Win rates leave out draws and mirror matches, and are blank below {rankings.metadata.min_matches_for_win_rate} matches.</p>
        </>
      )}
    </section>
  );
}
