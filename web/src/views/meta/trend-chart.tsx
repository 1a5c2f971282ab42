/** The leading archetypes' weekly share across the chosen windows, as a line chart and a table. */
import type { ChartConfiguration } from 'chart.js';
import { useMemo } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { ChartCanvas, SERIES_COLOURS } from './chart-canvas.js';
import { percent } from './figures.js';
import { ScrollBox } from '../../components/scroll-box.js';
import { loadShareTrend, weeksSpanned, type ShareTrend } from './share-trend.js';

function trendConfig(trend: ShareTrend): ChartConfiguration {
  return {
    type: 'line',
    data: {
      labels: trend.weeks,
      datasets: trend.series.map((line, index) => ({
        label: line.archetype,
        data: line.shares,
        borderColor: SERIES_COLOURS[index % SERIES_COLOURS.length],
        backgroundColor: SERIES_COLOURS[index % SERIES_COLOURS.length],
        tension: 0.2,
      })),
    },
    options: {
      scales: { y: { title: { display: true, text: 'Meta share (%)' }, beginAtZero: true } },
      plugins: { tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${item.parsed.y}%` } } },
    },
  };
}

export function TrendChart({ format, archetypes, currentDays, previousDays }: { format: string; archetypes: string[]; currentDays: number; previousDays: number }) {
  const weeks = weeksSpanned(currentDays, previousDays);
  const trend = useAsync((signal) => loadShareTrend(format, archetypes, weeks, signal), [format, archetypes.join('\n'), weeks]);
  const config = useMemo(() => (trend.data ? trendConfig(trend.data) : undefined), [trend.data]);

  return (
    <figure data-testid="meta-trend">
      <figcaption>Weekly share of the top {archetypes.length} archetypes, last {weeks} weeks</figcaption>
      <ErrorNote error={trend.error} />
      {config && trend.data ? (
        <>
          <ChartCanvas
            config={config}
            testId="meta-trend-chart"
            tall
            label={`Line chart of the weekly meta share of ${archetypes.join(', ')} over the last ${weeks} weeks; the numbers are in the table after it.`}
          />
          <details>
            <summary>Weekly shares as a table</summary>
            <ScrollBox label="Weekly meta share (scrolls sideways)">
              <table aria-label="Weekly meta share" data-testid="meta-trend-table">
                <thead>
                  <tr>
                    <th scope="col">Week</th>
                    {trend.data.series.map((line) => (
                      <th scope="col" class="num" key={line.archetype}>
                        {line.archetype}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {trend.data.weeks.map((week, index) => (
                    <tr key={week}>
                      <th scope="row">{week}</th>
                      {trend.data!.series.map((line) => (
                        <td class="num" key={line.archetype}>
                          {percent(line.shares[index])}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          </details>
        </>
      ) : trend.loading ? (
        <p role="status">Loading the weekly trend…</p>
      ) : null}
    </figure>
  );
}
