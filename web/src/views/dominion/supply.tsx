/**
 * The Supply: every pile with its cost and the cards left. A pile you can buy now is a button that
 * makes that buy (the same move as its numbered option).
 */
import { CardFace } from './card.js';
import { BASIC_PILES, useCardFacts } from './cards.js';
import type { GameOption, GameState } from './game-api.js';

interface SupplyProps {
  state: GameState;
  options: GameOption[];
  busy: boolean;
  onPick: (option: GameOption) => void;
}

function Pile({ name, left, buy, busy, onPick }: { name: string; left: number; buy: GameOption | undefined; busy: boolean; onPick: SupplyProps['onPick'] }) {
  const count = <span class="pile-count">{left} left</span>;
  return (
    <li class={left === 0 ? 'pile pile-empty' : 'pile'} data-pile={name} data-left={left}>
      {buy ? (
        <button type="button" class="pile-buy" data-testid="supply-buy" data-command={buy.command} disabled={busy} onClick={() => onPick(buy)}>
          <span class="visually-hidden">Buy </span>
          <CardFace name={name}>{count}</CardFace>
        </button>
      ) : (
        <CardFace name={name}>{count}</CardFace>
      )}
    </li>
  );
}

export function Supply({ state, options, busy, onPick }: SupplyProps) {
  const cardFacts = useCardFacts();
  const buys = new Map(options.filter((o) => o.command.startsWith('buy ')).map((o) => [o.command.slice(4), o]));
  const piles = Object.keys(state.supply);
  const basic = BASIC_PILES.filter((name) => piles.includes(name));
  const kingdom = piles
    .filter((name) => !BASIC_PILES.includes(name))
    .sort((a, b) => cardFacts(a).cost - cardFacts(b).cost || a.localeCompare(b));
  const pile = (name: string) => <Pile key={name} name={name} left={state.supply[name] ?? 0} buy={buys.get(name)} busy={busy} onPick={onPick} />;
  return (
    <section class="panel dominion-supply" aria-labelledby="supply-title">
      <h2 id="supply-title">Supply</h2>
      <ul class="pile-grid" aria-label="Treasure, Victory and Curse piles">
        {basic.map(pile)}
      </ul>
      <ul class="pile-grid" aria-label="Kingdom piles">
        {kingdom.map(pile)}
      </ul>
      <p class="muted">Trash: {state.trashCount} card{state.trashCount === 1 ? '' : 's'}</p>
    </section>
  );
}
