/**
 * The settings the coach takes with a message (format, the two windows, archetype, deck text). They
 * show the conversation's state until the user changes one; a message then sends only what the user
 * changed, so the coach never receives a value the user did not choose (the spec's "no default").
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CoachState } from './coach-api.js';
import type { ChatContext } from './chat-turn.js';

export interface ContextValues {
  format: string;
  currentDays: number | null;
  previousDays: number | null;
  archetype: string;
  deckText: string;
}

type Field = keyof ContextValues;

const fromState = (state: CoachState, deckText: string): ContextValues => ({
  format: state.format ?? '',
  currentDays: state.current_days,
  previousDays: state.previous_days,
  archetype: state.archetype ?? '',
  deckText,
});

export interface ChatContextControl {
  values: ContextValues;
  changed: ReadonlySet<Field>;
  change<F extends Field>(field: F, value: ContextValues[F]): void;
  /** The changed settings as POST /chat fields; they count as sent from now on. */
  take(): ChatContext;
}

/** `generation` changes when another conversation is opened: its settings replace the edits. */
export function useChatContext(state: CoachState, generation: number): ChatContextControl {
  const [values, setValues] = useState<ContextValues>(() => fromState(state, ''));
  const [changed, setChanged] = useState<ReadonlySet<Field>>(new Set());
  const previous = useRef(state);

  useEffect(() => {
    previous.current = state;
    setValues(fromState(state, ''));
    setChanged(new Set());
  }, [generation]);

  // Follow what the server changes (a format named in a message, the windows once a turn ends), not
  // what it has not heard yet: a setting sent with a running turn stays until the turn reports it.
  useEffect(() => {
    const before = fromState(previous.current, '');
    previous.current = state;
    setValues((current) => {
      const server = fromState(state, current.deckText);
      const next = { ...current };
      for (const field of ['format', 'currentDays', 'previousDays', 'archetype'] as const) {
        if (!changed.has(field) && server[field] !== before[field]) (next as Record<Field, unknown>)[field] = server[field];
      }
      return next;
    });
  }, [state]);

  const change = <F extends Field>(field: F, value: ContextValues[F]) => {
    setValues((current) => {
      const next = { ...current, [field]: value };
      // An archetype belongs to its format.
      if (field === 'format' && value !== current.format) next.archetype = '';
      return next;
    });
    setChanged((current) => new Set(current).add(field));
  };

  const take = (): ChatContext => {
    const context: ChatContext = {};
    if (changed.has('format') && values.format) context.format = values.format;
    if (changed.has('currentDays') && values.currentDays !== null) context.current_days = values.currentDays;
    if (changed.has('previousDays') && values.previousDays !== null) context.previous_days = values.previousDays;
    if ((changed.has('archetype') || changed.has('format')) && values.archetype) context.archetype = values.archetype;
    if (changed.has('deckText') && values.deckText.trim()) context.deck_text = values.deckText.trim();
    setChanged(new Set());
    return context;
  };

  return { values, changed, change, take };
}
