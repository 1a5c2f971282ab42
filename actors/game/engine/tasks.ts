/**
 * Entries of `state.stack`. A decision waits for its player (`p`) to answer with a move of the same
 * name; an automatic step runs as soon as it reaches the front. Every field is a scalar so the state
 * stays plain JSON and cheap to copy.
 */
import { ARTISAN, BANDIT, BUREAUCRAT, CELLAR, CHANCELLOR, CHAPEL, HARBINGER, LIBRARY, MILITIA, MINE, MOAT, MONEYLENDER, POACHER, REMODEL, SENTRY, SPY, THIEF, THRONE_ROOM, VASSAL } from './cards.js';

export type Decision =
  /** Cellar: discard one card at a time; `n` discarded so far (drawn when done). */
  | { k: 'discard_for_cellar'; p: number; n: number }
  /** Chapel: trash one card at a time, up to 4; `n` trashed so far. */
  | { k: 'trash_cards'; p: number; n: number }
  /** Poacher: `n` cards still to discard. */
  | { k: 'discard_for_poacher'; p: number; n: number }
  | { k: 'trash_copper'; p: number }
  | { k: 'trash_for_remodel'; p: number }
  | { k: 'trash_for_mine'; p: number }
  /** Gain from the Supply; `c` is the card asking (Workshop, Feast, Remodel, Mine, Artisan). */
  | { k: 'gain_card'; p: number; c: number; max: number; treasure: boolean; toHand: boolean; step: number }
  /** Artisan's second step: a card from hand onto the deck. */
  | { k: 'topdeck_card'; p: number }
  | { k: 'select_action_for_throne'; p: number }
  /** Library drew Action `c` (now in hand): set it aside or keep it. */
  | { k: 'library_set_aside'; p: number; c: number }
  | { k: 'chancellor_decision'; p: number }
  | { k: 'harbinger_topdeck'; p: number }
  /** Vassal discarded Action `c` (top of the discard pile): play it or not. */
  | { k: 'vassal_play'; p: number; c: number }
  /** Sentry: card `c` is the deck card `kept` places below the top; `left` cards (this one included) still to decide. */
  | { k: 'sentry_decision'; p: number; c: number; left: number; kept: number }
  /** Sentry kept two different cards: which goes on top. */
  | { k: 'sentry_order'; p: number }
  /** Player `p` holds Moat while player `a` plays Attack `c`. */
  | { k: 'reveal_moat'; p: number; a: number; c: number }
  | { k: 'discard_for_militia'; p: number }
  | { k: 'reveal_and_topdeck'; p: number }
  /** Bandit revealed two different non-Copper Treasures (in the victim's `aside`): the victim picks one to trash. */
  | { k: 'bandit_trash'; p: number }
  /** Spy: the attacker `p` decides about the top card `c` of player `t`'s deck. */
  | { k: 'spy_decision'; p: number; t: number; c: number }
  /** Thief: the attacker `p` picks which revealed Treasure of player `t` is trashed. */
  | { k: 'thief_trash'; p: number; t: number }
  /** Thief: the attacker `p` may gain the trashed Treasure `c` (the last card in the trash). */
  | { k: 'thief_gain'; p: number; t: number; c: number };

export type AutomaticStep =
  /** Throne Room's second play of `c`. */
  | { k: 'replay'; p: number; c: number }
  /** Attack `c`'s effect, run once every Moat holder has chosen. `again`: the Throne Room replay. */
  | { k: 'attack'; p: number; c: number; again: boolean }
  | { k: 'library'; p: number }
  | { k: 'artisan_topdeck'; p: number }
  /** Per-victim attack steps (`p` is the victim, `t` the victim for the attacker-owned ones). */
  | { k: 'militia'; p: number }
  | { k: 'bureaucrat'; p: number }
  | { k: 'bandit'; p: number }
  | { k: 'spy'; p: number; t: number }
  | { k: 'thief'; p: number; t: number };

export type Task = Decision | AutomaticStep;
export type DecisionKind = Decision['k'];

const DECISION_KINDS: ReadonlySet<string> = new Set<DecisionKind>([
  'discard_for_cellar', 'trash_cards', 'discard_for_poacher', 'trash_copper', 'trash_for_remodel', 'trash_for_mine',
  'gain_card', 'topdeck_card', 'select_action_for_throne', 'library_set_aside', 'chancellor_decision',
  'harbinger_topdeck', 'vassal_play', 'sentry_decision', 'sentry_order', 'reveal_moat', 'discard_for_militia',
  'reveal_and_topdeck', 'bandit_trash', 'spy_decision', 'thief_trash', 'thief_gain',
]);

export const isDecision = (t: Task): t is Decision => DECISION_KINDS.has(t.k);

/** The card whose text a decision comes from (for display). */
export function decisionCard(d: Decision): number {
  switch (d.k) {
    case 'discard_for_cellar': return CELLAR;
    case 'trash_cards': return CHAPEL;
    case 'discard_for_poacher': return POACHER;
    case 'trash_copper': return MONEYLENDER;
    case 'trash_for_remodel': return REMODEL;
    case 'trash_for_mine': return MINE;
    case 'gain_card': return d.c;
    case 'topdeck_card': return ARTISAN;
    case 'select_action_for_throne': return THRONE_ROOM;
    case 'library_set_aside': return LIBRARY;
    case 'chancellor_decision': return CHANCELLOR;
    case 'harbinger_topdeck': return HARBINGER;
    case 'vassal_play': return VASSAL;
    case 'sentry_decision': case 'sentry_order': return SENTRY;
    case 'reveal_moat': return MOAT;
    case 'discard_for_militia': return MILITIA;
    case 'reveal_and_topdeck': return BUREAUCRAT;
    case 'bandit_trash': return BANDIT;
    case 'spy_decision': return SPY;
    case 'thief_trash': case 'thief_gain': return THIEF;
  }
}
