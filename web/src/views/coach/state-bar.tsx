/** What the coach holds for this conversation, as the server last reported it (load, metadata, state). */
import type { CoachState } from './coach-api.js';

const WORKFLOWS: Record<string, string> = { meta_research: 'meta research', deck_coaching: 'deck coaching', unknown: 'open question' };

const days = (value: number | null) => (value === null ? 'not set' : `${value} days`);

export function StateBar({ state }: { state: CoachState }) {
  const items: Array<[string, string, string]> = [
    ['format', 'Format', state.format ?? 'not set'],
    ['current', 'Current window', days(state.current_days)],
    ['previous', 'Previous window', days(state.previous_days)],
    ['archetype', 'Archetype', state.archetype ?? 'not set'],
    ['deck', 'Deck', state.has_deck ? (state.deck_cards ? `${state.deck_cards} cards` : 'loaded') : 'none'],
    ['workflow', 'Workflow', state.current_workflow ? (WORKFLOWS[state.current_workflow] ?? state.current_workflow) : '—'],
  ];
  return (
    <section class="coach-state-bar" aria-label="Conversation state" data-testid="state-bar">
      <dl>
        {items.map(([key, label, value]) => (
          <div key={key} data-state={key}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
