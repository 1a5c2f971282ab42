/** Human-readable text for options and pending decisions, in the spec's wording where it has one. */
import { cardId, cardInfo, CARD_NAMES, COINS, COST, MERCHANT, SILVER, type CardName } from '../engine/cards.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { playerLabel } from '../engine/step.js';
import type { Decision } from '../engine/tasks.js';

export interface Described {
  description: string;
  cards?: CardName[];
  details?: Record<string, unknown>;
}

const cost = (name: CardName): number => COST[cardId(name)];

/** $ that "play all Treasures" would add now (including a pending Merchant bonus). */
function treasureTotal(s: GameState, p: number): number {
  let total = 0;
  let silver = false;
  for (const c of s.players[p].hand) {
    total += COINS[c];
    if (c === SILVER) silver = true;
  }
  return total + (silver && !s.silverPlayed ? s.merchants : 0);
}

export function describeTurnMove(s: GameState, p: number, move: Move): Described {
  switch (move.type) {
    case 'play_action':
      return { description: `Play ${move.card}: ${cardInfo(move.card).text}`, cards: [move.card] };
    case 'play_treasure': {
      const bonus = move.card === 'Silver' && !s.silverPlayed && s.merchants > 0 ? ` +$${s.merchants} from ${CARD_NAMES[MERCHANT]}` : '';
      return { description: `Play ${move.card} (+$${COINS[cardId(move.card)]}${bonus})`, cards: [move.card] };
    }
    case 'play_all_treasures': {
      const coins = treasureTotal(s, p);
      return { description: `Play all Treasures (+$${coins})`, details: { coins } };
    }
    case 'buy':
      return { description: `Buy ${move.card} ($${cost(move.card)})`, cards: [move.card], details: { cost: cost(move.card) } };
    case 'end_phase':
      return { description: 'End Action phase (go to Buy phase)' };
    case 'end_turn':
      return { description: s.bought || s.buys === 0 ? 'End turn' : 'End turn without buying' };
    default:
      return { description: move.type };
  }
}

export function describeDecisionMove(s: GameState, d: Decision, move: Move): Described {
  const card = (move as { card?: CardName | null }).card ?? null;
  const choice = (move as { choice?: boolean }).choice === true;
  const cards = card === null ? [] : [card];
  switch (d.k) {
    case 'discard_for_cellar':
      return card === null
        ? { description: d.n === 0 ? 'Discard nothing (draw 0)' : `Done discarding (draw ${d.n})`, cards, details: { drawCount: d.n } }
        : { description: `Discard: ${card} (then choose more, or finish to draw)`, cards, details: { discardedSoFar: d.n } };
    case 'trash_cards':
      return card === null
        ? { description: d.n === 0 ? 'Trash nothing' : `Done trashing (${d.n} trashed)`, cards, details: { trashCount: d.n } }
        : { description: `Trash: ${card} (${d.n + 1} of up to 4)`, cards, details: { trashCount: d.n + 1 } };
    case 'discard_for_poacher':
      return { description: `Discard: ${card} (${d.n} to discard for empty Supply piles)`, cards, details: { remaining: d.n } };
    case 'trash_copper':
      return { description: choice ? 'Trash a Copper for +$3' : "Don't trash a Copper", details: { action: choice ? 'trash' : 'keep' } };
    case 'trash_for_remodel': {
      const c = cost(card!);
      return { description: `Trash: ${card} ($${c}) → Can gain up to $${c + 2}`, cards, details: { trashCost: c, maxGainCost: c + 2 } };
    }
    case 'trash_for_mine': {
      if (card === null) return { description: "Don't trash a Treasure", cards, details: { action: 'skip' } };
      const c = cost(card);
      return { description: `Trash: ${card} ($${c}) → Gain a Treasure up to $${c + 3} to your hand`, cards, details: { trashCost: c, maxGainCost: c + 3 } };
    }
    case 'gain_card':
      return { description: `Gain: ${card} ($${cost(card!)})${d.toHand ? ' to your hand' : ''}`, cards, details: { gainCost: cost(card!) } };
    case 'topdeck_card':
      return { description: `Put ${card} from your hand onto your deck`, cards };
    case 'select_action_for_throne':
      return card === null
        ? { description: "Skip (don't use Throne Room)", cards, details: { action: 'skip' } }
        : { description: `Play: ${card} (twice) → ${cardInfo(card).text}`, cards, details: { doubledEffect: cardInfo(card).text } };
    case 'library_set_aside':
      return move.type === 'library_set_aside'
        ? { description: `Set aside: ${card} (skip it, discard at end)`, cards, details: { action: 'set_aside' } }
        : { description: `Keep: ${card} in hand`, cards, details: { action: 'keep' } };
    case 'chancellor_decision': {
      const deckSize = s.players[d.p].deck.length;
      return choice
        ? { description: `Yes - Put deck into discard pile (${deckSize} cards)`, details: { deckSize, action: 'move_to_discard' } }
        : { description: 'No - Keep deck as is', details: { action: 'keep_deck' } };
    }
    case 'harbinger_topdeck':
      return card === null
        ? { description: "Don't put a card onto your deck", cards, details: { action: 'skip' } }
        : { description: `Put ${card} from your discard pile onto your deck`, cards };
    case 'vassal_play':
      return choice
        ? { description: `Play ${CARD_NAMES[d.c]} from the discard pile (uses no Action)`, cards: [CARD_NAMES[d.c]] }
        : { description: `Leave ${CARD_NAMES[d.c]} in the discard pile`, cards: [CARD_NAMES[d.c]] };
    case 'sentry_decision': {
      const where = d.kept === 0 && d.left === 2 ? 'top card' : 'next card';
      if (move.type === 'sentry_trash') return { description: `Trash: ${card} (${where})`, cards, details: { action: 'trash' } };
      if (move.type === 'sentry_discard') return { description: `Discard: ${card} (${where})`, cards, details: { action: 'discard' } };
      return { description: `Keep: ${card} on your deck`, cards, details: { action: 'keep' } };
    }
    case 'sentry_order':
      return { description: `Put ${card} on top of your deck (the other kept card under it)`, cards };
    case 'reveal_moat':
      return choice
        ? { description: `Reveal Moat: unaffected by ${CARD_NAMES[d.c]}`, cards: ['Moat'], details: { attack: CARD_NAMES[d.c] } }
        : { description: `Don't reveal Moat (${CARD_NAMES[d.c]} affects you)`, details: { attack: CARD_NAMES[d.c] } };
    case 'discard_for_militia': {
      const left = s.players[d.p].hand.length - 3;
      return { description: `Discard: ${card} (${left} to discard, down to 3 cards)`, cards, details: { remaining: left } };
    }
    case 'reveal_and_topdeck':
      return { description: `Topdeck: ${card}`, cards, details: { action: 'topdeck' } };
    case 'bandit_trash':
      return { description: `Trash: ${card} (discard the other revealed card)`, cards };
    case 'spy_decision': {
      const owner = `${playerLabel(d.t)}${d.t === d.p ? ' (you)' : ''}`;
      return move.type === 'spy_discard'
        ? { description: `Discard: ${card} (${owner}'s top card)`, cards, details: { player: d.t, action: 'discard' } }
        : { description: `Keep: ${card} on top of deck (${owner})`, cards, details: { player: d.t, action: 'keep' } };
    }
    case 'thief_trash':
      return { description: `Trash: ${card} (${playerLabel(d.t)}'s revealed Treasure)`, cards, details: { player: d.t } };
    case 'thief_gain':
      return choice
        ? { description: `Gain the trashed ${CARD_NAMES[d.c]}`, cards: [CARD_NAMES[d.c]] }
        : { description: `Leave ${CARD_NAMES[d.c]} in the trash`, cards: [CARD_NAMES[d.c]] };
  }
}

/** One line saying what the pending decision asks (the response "message"). */
export function decisionPrompt(s: GameState, d: Decision): string {
  switch (d.k) {
    case 'discard_for_cellar': return `Cellar: discard cards one at a time, then finish to draw as many (${d.n} discarded so far)`;
    case 'trash_cards': return `Chapel: trash up to ${4 - d.n} more card(s) from your hand, one at a time`;
    case 'discard_for_poacher': return `Poacher: discard ${d.n} more card(s) (one per empty Supply pile)`;
    case 'trash_copper': return 'Moneylender: trash a Copper for +$3?';
    case 'trash_for_remodel': return 'Remodel - Step 1: Choose card to trash';
    case 'trash_for_mine': return 'Mine - Step 1: Choose a Treasure to trash (or none)';
    case 'gain_card': {
      const source = CARD_NAMES[d.c];
      const what = d.treasure ? 'Treasure' : 'card';
      const step = d.step === 2 || source === 'Artisan' ? ` - Step ${d.step}` : '';
      return `${source}${step}: Choose ${what} to gain (up to $${d.max})${d.toHand ? ' to your hand' : ''}`;
    }
    case 'topdeck_card': return 'Artisan - Step 2: Put a card from your hand onto your deck';
    case 'select_action_for_throne': return 'Throne Room: choose an Action to play twice';
    case 'library_set_aside': return `Library: drew ${CARD_NAMES[d.c]} - set it aside or keep it?`;
    case 'chancellor_decision': return 'Chancellor: put your deck into your discard pile?';
    case 'harbinger_topdeck': return 'Harbinger: you may put a card from your discard pile onto your deck';
    case 'vassal_play': return `Vassal: discarded ${CARD_NAMES[d.c]} - play it?`;
    case 'sentry_decision': return `Sentry: ${CARD_NAMES[d.c]} - trash, discard or keep it?`;
    case 'sentry_order': return 'Sentry: choose which kept card goes on top';
    case 'reveal_moat': return `${playerLabel(d.a)} played ${CARD_NAMES[d.c]}: reveal Moat to be unaffected?`;
    case 'discard_for_militia': return `Militia: discard down to 3 cards (${s.players[d.p].hand.length - 3} more)`;
    case 'reveal_and_topdeck': return 'Bureaucrat: put a Victory card from your hand onto your deck';
    case 'bandit_trash': return 'Bandit: choose which revealed Treasure to trash';
    case 'spy_decision': return `Spy: ${playerLabel(d.t)} revealed ${CARD_NAMES[d.c]} - discard it or keep it on top?`;
    case 'thief_trash': return `Thief: choose which of ${playerLabel(d.t)}'s Treasures to trash`;
    case 'thief_gain': return `Thief: gain the trashed ${CARD_NAMES[d.c]}?`;
  }
}
