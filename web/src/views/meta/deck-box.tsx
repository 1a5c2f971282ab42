/**
 * The deck box: paste a list, say which archetype it is and which opponent to prepare for, and get
 * the enriched deck, the archetype's matchups, the strategy and both optimizers' suggestions.
 * Archetype choices come from GET /archetypes, ordered by the meta.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { useDeckAnalysis, type Step } from './deck-analysis.js';
import { EnrichedDeckTable } from './enriched-deck-table.js';
import { fetchArchetypes } from './meta-api.js';
import { MatchupTable } from './matchup-table.js';
import { MainboardPanel, SideboardPanel } from './optimizer-panels.js';
import { StrategyPanel } from './strategy-panel.js';

function Result<T>({ title, step, testId, children }: { title: string; step: Step<T> | undefined; testId: string; children: (data: T) => ComponentChildren }) {
  if (!step) return null;
  return (
    <section class="panel deck-result" aria-labelledby={`${testId}-title`} aria-busy={step.loading} data-testid={testId}>
      <h3 id={`${testId}-title`}>{title}</h3>
      <ErrorNote error={step.error} />
      {step.loading ? <p role="status">Working…</p> : step.data === undefined ? null : children(step.data)}
    </section>
  );
}

export function DeckBox({ format, days, preferredArchetype }: { format: string; days: number; preferredArchetype: string | undefined }) {
  const archetypes = useAsync((signal) => fetchArchetypes(format, days, signal), [format, days]);
  const [deck, setDeck] = useState('');
  const [chosen, setChosen] = useState('');
  const [chosenOpponent, setChosenOpponent] = useState('');
  const { analysis, analyse } = useDeckAnalysis();

  const names = (archetypes.data ?? []).map((entry) => entry.name);
  const known = (name: string | undefined) => (name && names.includes(name) ? name : undefined);
  const archetype = known(chosen) ?? known(preferredArchetype) ?? names[0] ?? '';
  const opponent = known(chosenOpponent) ?? names.find((name) => name !== archetype) ?? '';

  const submit = (event: Event) => {
    event.preventDefault();
    void analyse({ deck, format, archetype, opponent, days });
  };

  const cards = analysis?.enriched.data?.card_details ?? [];
  return (
    <section aria-labelledby="deck-box-title" data-testid="deck-box">
      <h2 id="deck-box-title">Deck box</h2>
      <p class="muted">
        Paste a {format} deck list (MTGO, Arena or Moxfield export; a “Sideboard” line or a blank line before the sideboard). The analysis uses the
        last {days} days.
      </p>
      <form onSubmit={submit} class="deck-form">
        <label for="deck-text">Deck list</label>
        <textarea id="deck-text" class="mono" rows={12} value={deck} required onInput={(e) => setDeck(e.currentTarget.value)} placeholder={'4 Lightning Bolt\n…\n\nSideboard\n2 Blood Moon'} />
        <ErrorNote error={archetypes.error} />
        <div class="row">
          <div>
            <label for="deck-archetype">Its archetype</label>
            <select id="deck-archetype" value={archetype} onChange={(e) => setChosen(e.currentTarget.value)} disabled={names.length === 0}>
              {(archetypes.data ?? []).map((entry) => (
                <option key={entry.id} value={entry.name}>
                  {entry.name} ({entry.meta_share}%)
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="deck-opponent">Opponent for the strategy</label>
            <select id="deck-opponent" value={opponent} onChange={(e) => setChosenOpponent(e.currentTarget.value)} disabled={names.length === 0}>
              {names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={!archetype || !opponent || analysis?.enriched.loading}>
            Analyse deck
          </button>
        </div>
      </form>

      {analysis ? (
        <div class="deck-results" data-testid="deck-results">
          <Result title="Your deck" step={analysis.enriched} testId="deck-enriched">
            {(enriched) => <EnrichedDeckTable deck={enriched} />}
          </Result>
          <Result title={`${analysis.archetype}: matchups`} step={analysis.matchups} testId="deck-matchups">
            {(matchups) => <MatchupTable matchups={matchups} testId="deck-matchups-table" />}
          </Result>
          <Result title={`Strategy against ${analysis.opponent}`} step={analysis.strategy} testId="deck-strategy-panel">
            {(strategy) => <StrategyPanel strategy={strategy} />}
          </Result>
          <Result title="Main deck suggestions" step={analysis.mainboard} testId="deck-mainboard">
            {(advice) => <MainboardPanel advice={advice} />}
          </Result>
          <Result title="Sideboard suggestions" step={analysis.sideboard} testId="deck-sideboard">
            {(advice) => <SideboardPanel advice={advice} deck={cards} />}
          </Result>
        </div>
      ) : null}
    </section>
  );
}
