/** generate_deck_matchup_strategy: the record, the opponent's staples, your key cards and the advice. */
import { Markdown } from '../../components/markdown.js';
import { percent } from './figures.js';
import type { Adoption, MatchupStrategy } from './meta-api.js';

function AdoptionChips({ cards, label }: { cards: Adoption[]; label: string }) {
  return (
    <ul class="chips" aria-label={label}>
      {cards.map((card) => (
        <li class="chip" key={card.name}>
          {card.name} <span class="muted">{card.decks_pct}% · {card.average_copies}×</span>
        </li>
      ))}
    </ul>
  );
}

export function StrategyPanel({ strategy }: { strategy: MatchupStrategy }) {
  const { matchup_stats: stats, opponent_profile: profile } = strategy;
  return (
    <div data-testid="deck-strategy">
      <p>
        Record against {strategy.opponent_archetype}: <strong>{percent(stats.win_rate)}</strong> over {stats.match_count} matches. From{' '}
        {profile.lists} recent {strategy.opponent_archetype} lists:
      </p>
      <h4>Their main-deck staples (share of lists · average copies)</h4>
      <AdoptionChips cards={profile.key_cards} label={`${strategy.opponent_archetype} main-deck staples`} />
      <h4>What they side in</h4>
      <AdoptionChips cards={profile.sideboard_cards} label={`${strategy.opponent_archetype} sideboard cards`} />
      <h4>Your key cards</h4>
      <ul class="chips" aria-label="Your key cards">
        {strategy.your_key_cards.map((card) => (
          <li class="chip" key={card.name}>
            {card.quantity} {card.name} {card.decks_pct === null ? null : <span class="muted">{card.decks_pct}% of lists</span>}
          </li>
        ))}
      </ul>
      <h4>Advice</h4>
      <Markdown text={strategy.advice} class="advice" />
    </div>
  );
}
