/**
 * Scouting: upload documents, start a run, answer its two gates (the plan; the player to save) and
 * read the final report; then the saved players and the reports. Routes:
 *   #/scouting                     documents, a new run, your runs
 *   #/scouting/<runId>             one run
 *   #/scouting/players             saved players;  #/scouting/player/<id>  one player
 *   #/scouting/reports             finished runs' reports;  #/scouting/report/<id>  one saved report
 */
import type { ComponentChildren } from 'preact';
import type { ViewProps } from '../../main.js';
import { hrefOf } from '../../route.js';
import { DocumentsPanel } from './documents-panel.js';
import { PlayerPage, ReportPage } from './record-pages.js';
import { PlayersList, RecentRuns, ReportsList } from './records-lists.js';
import { RunPage } from './run-page.js';
import { StartRunForm } from './start-run-form.js';
import { useRunSession } from './use-run-session.js';

type Screen = 'home' | 'players' | 'reports';

const SCREENS: Array<[Screen, string, string[]]> = [
  ['home', 'Runs and documents', []],
  ['players', 'Players', ['players']],
  ['reports', 'Reports', ['reports']],
];

function ScoutingNav({ current }: { current: Screen | undefined }) {
  return (
    <nav aria-label="Scouting" class="scouting-nav">
      <ul>
        {SCREENS.map(([screen, label, parts]) => (
          <li key={screen}>
            <a href={hrefOf('scouting', ...parts)} aria-current={current === screen ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function ScoutingView({ parts }: ViewProps) {
  const [session, actions] = useRunSession();
  const [first, second] = parts;

  if (first === 'player' && second) return withNav(undefined, <PlayerPage playerId={second} />);
  if (first === 'report' && second) return withNav(undefined, <ReportPage reportId={second} />);
  if (first === 'players') return withNav('players', <><h1>Scouting</h1><PlayersList /></>);
  if (first === 'reports') return withNav('reports', <><h1>Scouting</h1><ReportsList /></>);
  if (first) return withNav(undefined, <RunPage runId={first} session={session} actions={actions} />);
  return withNav(
    'home',
    <>
      <h1>Scouting</h1>
      <div class="scouting-home">
        <DocumentsPanel />
        <div>
          <StartRunForm busy={session.working && !session.runId} error={session.runId ? undefined : session.error} onStart={actions.start} />
          <RecentRuns />
        </div>
      </div>
    </>,
  );
}

function withNav(current: Screen | undefined, screen: ComponentChildren) {
  return (
    <div class="scouting">
      <ScoutingNav current={current} />
      {screen}
    </div>
  );
}
