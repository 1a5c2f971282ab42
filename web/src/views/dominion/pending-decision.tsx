/**
 * A card's decision in progress: what it asks and the cards it is about. Choices of several cards
 * (Cellar, Chapel, Militia, Poacher) also show the hand as toggles and send the whole choice as one
 * all-or-nothing move in the API's list form ("discard_for_cellar Copper,Estate").
 */
import { useState } from 'preact/hooks';
import { CardFace, CardRow } from './card.js';
import type { PendingEffect } from './game-api.js';

/** How many cards a multi-card choice takes. */
interface Pick {
  min: number;
  max: number;
  /** The bare verb finishes the choice after picks (Cellar, Chapel); Militia and Poacher end by count. */
  finishes: boolean;
}

function pickOf(pending: PendingEffect, hand: string[]): Pick | null {
  const number = (key: string) => Number(pending.details[key] ?? 0);
  switch (pending.effect) {
    case 'discard_for_cellar':
      return { min: 0, max: hand.length, finishes: true };
    case 'trash_cards':
      return { min: 0, max: Math.min(hand.length, 4 - number('trashed')), finishes: true };
    case 'discard_for_militia': {
      const exactly = Math.max(0, hand.length - 3);
      return { min: exactly, max: exactly, finishes: false };
    }
    case 'discard_for_poacher': {
      const exactly = Math.min(hand.length, number('remaining'));
      return { min: exactly, max: exactly, finishes: false };
    }
    default:
      return null;
  }
}

/** The one move that makes the whole choice. */
function choiceCommand(verb: string, pick: Pick, chosen: string[], handSize: number): string {
  if (chosen.length === 0) return verb;
  if (chosen.length > 1) return `${verb} ${chosen.join(',')}`;
  // One card is a single pick; Cellar and Chapel then need their finish, unless that pick ends the
  // choice by itself (the hand is empty, or Chapel's limit is reached).
  const endsItself = !pick.finishes || chosen.length === handSize || chosen.length === pick.max;
  return endsItself ? `${verb} ${chosen[0]}` : `${verb} ${chosen[0]}; ${verb}`;
}

function pickHint(pick: Pick): string {
  if (pick.min === pick.max) return `Choose exactly ${pick.min} card${pick.min === 1 ? '' : 's'}`;
  if (pick.min === 0) return `Choose up to ${pick.max} card${pick.max === 1 ? '' : 's'} (none is fine)`;
  return `Choose ${pick.min} to ${pick.max} cards`;
}

function CardChoice({ pending, hand, busy, onSubmit }: { pending: PendingEffect; hand: string[]; busy: boolean; onSubmit: (command: string) => void }) {
  const pick = pickOf(pending, hand)!;
  const [selected, setSelected] = useState<number[]>([]);
  const chosen = selected.map((i) => hand[i]);
  const toggle = (i: number) => setSelected((now) => (now.includes(i) ? now.filter((j) => j !== i) : now.length < pick.max ? [...now, i] : now));
  const ready = chosen.length >= pick.min && chosen.length <= pick.max;
  return (
    <div class="card-choice" data-testid="card-choice">
      <p id="card-choice-hint">
        {pickHint(pick)} · {chosen.length} selected
      </p>
      <ul class="card-row" aria-label="Your hand: choose cards" aria-describedby="card-choice-hint">
        {hand.map((name, i) => (
          <li key={`${name}-${i}`}>
            <button type="button" class="card-toggle" data-testid="choice-card" data-card={name} aria-pressed={selected.includes(i)} disabled={busy} onClick={() => toggle(i)}>
              <CardFace name={name} />
            </button>
          </li>
        ))}
      </ul>
      <button type="button" data-testid="submit-choice" disabled={busy || !ready} onClick={() => onSubmit(choiceCommand(pending.effect, pick, chosen, hand.length))}>
        {chosen.length === 0 ? 'Choose none' : `Submit ${chosen.length} card${chosen.length === 1 ? '' : 's'}`}
      </button>
    </div>
  );
}

interface PendingDecisionProps {
  pending: PendingEffect;
  mine: boolean;
  hand: string[];
  busy: boolean;
  onSubmit: (command: string) => void;
}

export function PendingDecision({ pending, mine, hand, busy, onSubmit }: PendingDecisionProps) {
  const choosesCards = mine && pickOf(pending, hand) !== null;
  return (
    <section class="panel dominion-pending" aria-labelledby="pending-title" data-testid="pending-decision" data-effect={pending.effect}>
      <h2 id="pending-title">
        {pending.card}
        {pending.step ? ` · step ${pending.step}` : ''}
      </h2>
      <p>{pending.message}</p>
      {pending.cards.length > 0 ? <CardRow cards={pending.cards} label="Cards this decision is about" empty="" /> : null}
      {choosesCards ? <CardChoice key={`${pending.effect}-${hand.join(',')}`} pending={pending} hand={hand} busy={busy} onSubmit={onSubmit} /> : null}
      {mine && !choosesCards ? <p class="muted">Answer with one of your options below.</p> : null}
    </section>
  );
}
