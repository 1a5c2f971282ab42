/** A card as the board shows it: its name, cost and type, coloured by type. */
import type { ComponentChildren } from 'preact';
import { useCardFacts } from './cards.js';

export function CardFace({ name, children }: { name: string; children?: ComponentChildren }) {
  const facts = useCardFacts()(name);
  return (
    <span class={`card card-${facts.kind}`} title={facts.text || undefined}>
      <span class="card-name">{name}</span>
      <span class="card-meta">
        <span class="card-cost">${facts.cost}</span>
        <span class="card-types">{facts.types}</span>
      </span>
      {children}
    </span>
  );
}

/** A row of cards (a hand, cards in play), or a note when there are none. */
export function CardRow({ cards, label, empty }: { cards: string[]; label: string; empty: string }) {
  if (cards.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="card-row" aria-label={label}>
      {cards.map((name, i) => (
        <li key={`${name}-${i}`} data-card={name}>
          <CardFace name={name} />
        </li>
      ))}
    </ul>
  );
}
