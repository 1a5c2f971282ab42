/**
 * The optimizers' suggestions as a diff of the deck: cards in and cards out, with counts. The main
 * deck diff comes from the swaps (add N, replacing N of a flex spot); the sideboard diff compares
 * your sideboard with the suggested final 15.
 */
import type { CardDetail, MainboardAdvice, SideboardAdvice } from './meta-api.js';

export interface CardCount {
  name: string;
  count: number;
}

export interface DeckDiff {
  cardsIn: CardCount[];
  cardsOut: CardCount[];
}

function tally(entries: Array<[string, number]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [name, count] of entries) counts.set(name, (counts.get(name) ?? 0) + count);
  return counts;
}

const listed = (counts: Map<string, number>): CardCount[] =>
  [...counts].filter(([, count]) => count > 0).map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));

export function mainboardDiff(advice: MainboardAdvice): DeckDiff {
  return {
    cardsIn: listed(tally(advice.recommendations.map((swap) => [swap.add, swap.quantity]))),
    cardsOut: listed(tally(advice.recommendations.flatMap((swap): Array<[string, number]> => (swap.replaces ? [[swap.replaces, swap.quantity]] : [])))),
  };
}

export function sideboardDiff(deck: CardDetail[], advice: SideboardAdvice): DeckDiff {
  const before = tally(deck.filter((card) => card.section === 'sideboard').map((card) => [card.name, card.quantity]));
  const after = tally(advice.final_sideboard.map((card) => [card.name, card.quantity]));
  const delta = new Map<string, number>();
  for (const name of new Set([...before.keys(), ...after.keys()])) delta.set(name, (after.get(name) ?? 0) - (before.get(name) ?? 0));
  return {
    cardsIn: listed(new Map([...delta].filter(([, d]) => d > 0))),
    cardsOut: listed(new Map([...delta].map(([name, d]) => [name, -d]))),
  };
}

export function CardDiff({ diff, testId, what }: { diff: DeckDiff; testId: string; what: string }) {
  if (diff.cardsIn.length === 0 && diff.cardsOut.length === 0) {
    return (
      <p data-testid={testId} data-empty="true">
        No changes suggested: your {what} already matches what the data favours.
      </p>
    );
  }
  return (
    <div class="card-diff" data-testid={testId}>
      <div>
        <h4>Cards out</h4>
        <ul aria-label={`Cards out of the ${what}`}>
          {diff.cardsOut.map((card) => (
            <li key={card.name} class="diff-out" data-card={card.name} data-count={-card.count}>
              <span class="diff-count">−{card.count}</span> {card.name}
            </li>
          ))}
        </ul>
      </div>
      <div>
        <h4>Cards in</h4>
        <ul aria-label={`Cards into the ${what}`}>
          {diff.cardsIn.map((card) => (
            <li key={card.name} class="diff-in" data-card={card.name} data-count={card.count}>
              <span class="diff-count">+{card.count}</span> {card.name}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
