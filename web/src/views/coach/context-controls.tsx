/**
 * The spec's inputs beside the chat: a format dropdown, the current and previous window sliders, an
 * archetype dropdown ordered by the meta of the chosen format and window, and the deck box.
 */
import { ErrorNote } from '../../components/error-note.js';
import type { AsyncState } from '../../components/use-async.js';
import type { ArchetypeOption, CoachState } from './coach-api.js';
import type { ChatContextControl } from './use-chat-context.js';

/** The data spans twelve weeks; a longer window would read the same decks. */
const MAX_DAYS = 90;
/** Where an unset slider's thumb rests (nothing is sent until the user moves it). */
export const RESTING_DAYS = 30;

interface Props {
  context: ChatContextControl;
  state: CoachState;
  formats: AsyncState<string[]>;
  archetypes: AsyncState<ArchetypeOption[]>;
  archetypeDays: number;
}

function DaysSlider(props: { id: string; label: string; value: number | null; unset: string; onChange: (days: number) => void }) {
  const shown = props.value ?? RESTING_DAYS;
  const text = props.value === null ? props.unset : `${props.value} days`;
  return (
    <div class="coach-slider">
      <label for={props.id}>
        {props.label}: <output for={props.id} data-testid={`${props.id}-value`}>{text}</output>
      </label>
      <input
        id={props.id}
        type="range"
        min={1}
        max={MAX_DAYS}
        step={1}
        value={shown}
        aria-valuetext={text}
        onInput={(event) => props.onChange(Number(event.currentTarget.value))}
      />
    </div>
  );
}

export function ContextControls({ context, state, formats, archetypes, archetypeDays }: Props) {
  const { values, change } = context;
  const options = archetypes.data ?? [];
  // The conversation's archetype stays selectable even when this window's list does not have it.
  const listed = !values.archetype || options.some((option) => option.name === values.archetype);
  return (
    <section class="panel coach-context" aria-labelledby="coach-settings-title">
      <h2 id="coach-settings-title" class="visually-hidden">Coach settings</h2>
      <div class="coach-context-grid">
        <div>
          <label for="coach-format">Format</label>
          <select id="coach-format" value={values.format} onChange={(event) => change('format', event.currentTarget.value)}>
            <option value="">Choose a format</option>
            {(formats.data ?? []).map((format) => (
              <option key={format} value={format}>
                {format}
              </option>
            ))}
          </select>
          <ErrorNote error={formats.error} />
        </div>
        <div>
          <label for="coach-archetype">Your archetype</label>
          <select
            id="coach-archetype"
            value={values.archetype}
            disabled={!values.format}
            aria-describedby="coach-archetype-hint"
            onChange={(event) => change('archetype', event.currentTarget.value)}
          >
            <option value="">{values.format ? 'Choose your archetype' : 'Choose a format first'}</option>
            {listed ? null : <option value={values.archetype}>{values.archetype}</option>}
            {options.map((option) => (
              <option key={option.id} value={option.name}>
                {option.name} — {option.meta_share}%
              </option>
            ))}
          </select>
          <p id="coach-archetype-hint" class="muted coach-hint">
            {values.format ? `By meta share in ${values.format}, last ${archetypeDays} days${archetypes.loading ? ' (loading…)' : ''}` : 'Ordered by the meta once a format is chosen'}
          </p>
          <ErrorNote error={archetypes.error} />
        </div>
        <DaysSlider
          id="coach-current-days"
          label="Current window"
          value={values.currentDays}
          unset="not set"
          onChange={(days) => change('currentDays', days)}
        />
        <DaysSlider
          id="coach-previous-days"
          label="Previous window"
          value={values.previousDays}
          unset="same as current"
          onChange={(days) => change('previousDays', days)}
        />
      </div>
      <label for="coach-deck">Your deck list</label>
      <textarea
        id="coach-deck"
        class="mono"
        rows={5}
        value={values.deckText}
        placeholder={'4 Ragavan, Nimble Pilferer\n4 Lightning Bolt\n…\n\nSideboard\n2 Blood Moon'}
        aria-describedby="coach-deck-hint"
        onInput={(event) => change('deckText', event.currentTarget.value)}
      />
      <p id="coach-deck-hint" class="muted coach-hint">
        {state.has_deck
          ? `The coach has your deck${state.deck_cards ? ` (${state.deck_cards} cards)` : ''}; paste another list to replace it.`
          : 'MTGO, Arena or Moxfield export; it goes with your next message.'}
      </p>
    </section>
  );
}
