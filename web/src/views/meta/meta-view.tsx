/**
 * MTG meta: pick a format and the windows (current and previous days, both ending at the data's newest
 * tournament), then read the rankings with their charts, the matchup matrix, one archetype's details
 * and the deck box. Route: `#/meta/<format>/<archetype>`, so a format and an archetype can be linked.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import type { ViewProps } from '../../main.js';
import { navigate } from '../../route.js';
import { ArchetypeDetails } from './archetype-details.js';
import { DeckBox } from './deck-box.js';
import { fetchFormats, fetchMatchupMatrix, fetchRankings } from './meta-api.js';
import { MatchupHeatmap } from './matchup-heatmap.js';
import { RankingsSection } from './rankings-section.js';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;

interface Windows {
  current: number;
  previous: number;
}

const clampDays = (value: number) => (Number.isFinite(value) ? Math.min(MAX_DAYS, Math.max(1, Math.round(value))) : DEFAULT_DAYS);

function WindowsForm({ formats, format, windows, onApply }: { formats: string[]; format: string | undefined; windows: Windows; onApply: (w: Windows) => void }) {
  const [current, setCurrent] = useState(String(windows.current));
  const [previous, setPrevious] = useState(String(windows.previous));
  const submit = (event: Event) => {
    event.preventDefault();
    const applied = { current: clampDays(Number(current)), previous: clampDays(Number(previous)) };
    setCurrent(String(applied.current));
    setPrevious(String(applied.previous));
    onApply(applied);
  };
  return (
    <form class="row meta-controls" onSubmit={submit} aria-label="Format and windows">
      <div>
        <label for="meta-format">Format</label>
        <select id="meta-format" value={format ?? ''} onChange={(e) => navigate('meta', e.currentTarget.value)}>
          {format && !formats.includes(format) ? <option value={format}>{format}</option> : null}
          {formats.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="meta-current-days">Current window (days)</label>
        <input id="meta-current-days" type="number" inputMode="numeric" min={1} max={MAX_DAYS} value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
      </div>
      <div>
        <label for="meta-previous-days">Previous window (days)</label>
        <input id="meta-previous-days" type="number" inputMode="numeric" min={1} max={MAX_DAYS} value={previous} onInput={(e) => setPrevious(e.currentTarget.value)} />
      </div>
      <button type="submit">Show</button>
    </form>
  );
}

export function MetaView({ parts }: ViewProps) {
  const formats = useAsync((signal) => fetchFormats(signal), []);
  const format = parts[0] ?? formats.data?.[0];
  const archetype = parts[1];
  const [windows, setWindows] = useState<Windows>({ current: DEFAULT_DAYS, previous: DEFAULT_DAYS });

  const rankings = useAsync((signal) => (format ? fetchRankings(format, windows.current, windows.previous, signal) : Promise.resolve(undefined)), [format, windows.current, windows.previous]);
  const matrix = useAsync((signal) => (format ? fetchMatchupMatrix(format, windows.current, signal) : Promise.resolve(undefined)), [format, windows.current]);

  // Without a format in the address, show the first one and make the address say so.
  useEffect(() => {
    if (!parts[0] && formats.data?.[0]) history.replaceState(null, '', `#/meta/${encodeURIComponent(formats.data[0])}`);
  }, [parts[0], formats.data]);

  const fresh = rankings.data?.metadata.format.toLowerCase() === format?.toLowerCase() ? rankings.data : undefined;
  const row = fresh?.data.find((entry) => entry.archetype.toLowerCase() === archetype?.toLowerCase() || entry.id === archetype);

  return (
    <div class="meta-view">
      <h1>MTG meta{format ? `: ${format}` : ''}</h1>
      <p class="muted">Windows end at the newest tournament in the data{fresh ? ` (${fresh.metadata.newest_tournament})` : ''}, not today.</p>
      <ErrorNote error={formats.error} />
      <WindowsForm formats={formats.data ?? []} format={format} windows={windows} onApply={setWindows} />
      {rankings.loading || matrix.loading ? (
        <p role="status" class="muted" data-testid="meta-loading">
          Loading…
        </p>
      ) : null}
      <ErrorNote error={rankings.error} />

      {format && archetype ? <ArchetypeDetails key={`${format}/${archetype}`} format={format} archetype={row?.archetype ?? archetype} row={row} days={windows.current} /> : null}
      {format && fresh && !rankings.error ? <RankingsSection rankings={fresh} format={format} selected={row?.archetype} /> : null}

      {rankings.error ? null : <ErrorNote error={matrix.error} />}
      {format && matrix.data && !matrix.error ? <MatchupHeatmap matrix={matrix.data} format={format} /> : null}

      {format && !rankings.error ? <DeckBox format={format} days={windows.current} preferredArchetype={row?.archetype} /> : null}
    </div>
  );
}
