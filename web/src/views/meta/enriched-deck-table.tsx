/** The parsed deck (get_enriched_deck): every card with its facts, and the lines that matched no card. */
import type { EnrichedDeck } from './meta-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

export function EnrichedDeckTable({ deck }: { deck: EnrichedDeck }) {
  const sections = (['mainboard', 'sideboard'] as const).map((section) => ({ section, cards: deck.card_details.filter((card) => card.section === section) }));
  return (
    <>
      <p data-testid="deck-counts">
        Main deck: <strong>{deck.mainboard_count}</strong> cards. Sideboard: <strong>{deck.sideboard_count}</strong> cards.
      </p>
      {deck.unmatched.length > 0 ? (
        <div class="warn" data-testid="deck-unmatched">
          <p>Some lines matched no card and were left out:</p>
          <ul>
            {deck.unmatched.map((line) => (
              <li key={line.line}>
                Line {line.line}: {line.quantity} {line.name}
                {line.suggestions.length > 0 ? ` (did you mean ${line.suggestions.join(', ')}?)` : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {deck.errors.length > 0 && deck.card_details.length === 0 ? (
        <ul class="error" role="alert">
          {deck.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      ) : null}
      {deck.card_details.length > 0 ? (
        <ScrollBox label="Your deck (scrolls sideways)">
          <table aria-label="Your deck, card by card" data-testid="enriched-deck">
            <thead>
              <tr>
                <th scope="col" class="num">Copies</th>
                <th scope="col">Card</th>
                <th scope="col">Mana cost</th>
                <th scope="col" class="num">Mana value</th>
                <th scope="col">Type</th>
              </tr>
            </thead>
            {sections
              .filter(({ cards }) => cards.length > 0)
              .map(({ section, cards }) => (
                <tbody key={section}>
                  <tr>
                    <th scope="colgroup" colSpan={5} class="deck-section">
                      {section === 'mainboard' ? 'Main deck' : 'Sideboard'}
                    </th>
                  </tr>
                  {cards.map((card) => (
                    <tr key={`${section}-${card.name}`} data-card={card.name} data-section={section}>
                      <td class="num">{card.quantity}</td>
                      <th scope="row">{card.name}</th>
                      <td>
                        <code class="mana">{card.mana_cost || '—'}</code>
                      </td>
                      <td class="num">{card.mana_value ?? '—'}</td>
                      <td>{card.type_line ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              ))}
          </table>
        </ScrollBox>
      ) : null}
    </>
  );
}
