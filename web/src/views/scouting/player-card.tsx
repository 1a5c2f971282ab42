/**
 * A player's fields as a card: only what the evidence supported is there, so every row is optional
 * but the name and the sport.
 */
import type { ComponentChildren } from 'preact';
import { sportLabel, type PlayerFields } from './scouting-api.js';

const feetAndInches = (cm: number) => {
  const inches = Math.round(cm / 2.54);
  return `${Math.floor(inches / 12)}′${inches % 12}″`;
};

function ListOrDash({ items }: { items: string[] | undefined }) {
  if (!items?.length) return <span class="muted">—</span>;
  return (
    <ul class="player-card-list">
      {items.map((item, i) => (
        <li key={i}>{item}</li>
      ))}
    </ul>
  );
}

export function PlayerCard({ fields }: { fields: Omit<PlayerFields, 'sport'> & { sport: string } }) {
  const physical = fields.physical ?? {};
  const scouting = fields.scouting ?? {};
  const rows: Array<[string, ComponentChildren]> = [
    ['Sport', sportLabel(fields.sport)],
    ['Positions', fields.positions?.join(', ') || '—'],
    ['Teams', fields.teams?.join(', ') || '—'],
    ['League', fields.league ?? '—'],
    ['Height', physical.height_cm ? `${physical.height_cm} cm (${feetAndInches(physical.height_cm)})` : '—'],
    ['Weight', physical.weight_kg ? `${physical.weight_kg} kg (${Math.round(physical.weight_kg * 2.20462)} lb)` : '—'],
    ['Strengths', <ListOrDash items={scouting.strengths} />],
    ['Weaknesses', <ListOrDash items={scouting.weaknesses} />],
    ['Style', scouting.style_tags?.join(', ') || '—'],
    ['Role projection', scouting.role_projection ?? '—'],
  ];
  return (
    <article class="player-card" data-testid="player-card" aria-label={`Player card: ${fields.display_name}`}>
      <h3 class="player-card-name">{fields.display_name}</h3>
      <dl>
        {rows.map(([term, value]) => (
          <div class="player-card-row" key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}
