/**
 * The spec's list form for choices of several cards (FR-MCP-3): "discard_for_cellar Copper,Copper,Estate"
 * answers the whole Cellar, "trash_cards Copper,Copper,Estate,Curse" the whole Chapel, and Militia's and
 * Poacher's discards take the exact number of cards. The engine still asks one card per move; the list is
 * an extra input form of applyCommand (and so of every surface), not an option.
 */
import { expect } from 'chai';
import { cardId } from '../../../actors/game/engine/cards.js';
import type { CardName, GameState } from '../../../actors/game/engine/index.js';
import { applyCommand, optionsFor, parseCommand, type CommandResult } from '../../../actors/game/options/index.js';
import { createSession, executeMove, joinSession, SessionError, viewFor, type GameSession } from '../../../actors/game/session.js';
import { action, discard, gameWith, hand, pending, play, sortNames, trash } from './fixtures.js';

/** Applies a command that must succeed; returns the new state. */
function ok(s: GameState, p: number, text: string): GameState {
  const r = applyCommand(s, p, text);
  if (!r.ok) throw new Error(`"${text}" failed: ${r.error.code} ${r.error.message}`);
  return r.state;
}

/** Expects a command to fail and leave the state untouched; returns the error. */
function fails(s: GameState, p: number, text: string): Extract<CommandResult, { ok: false }>['error'] {
  const before = JSON.stringify(s);
  const r = applyCommand(s, p, text);
  expect(r.ok, `expected "${text}" to fail`).to.equal(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.state).to.equal(s);
  expect(JSON.stringify(s)).to.equal(before);
  return r.error;
}

const cellarGame = (): GameState =>
  play(gameWith({ hands: [['Cellar', 'Copper', 'Copper', 'Estate', 'Silver']], decks: [['Gold', 'Gold', 'Gold', 'Duchy']] }), 0, action('Cellar'));

const chapelGame = (): GameState =>
  play(gameWith({ hands: [['Chapel', 'Copper', 'Copper', 'Estate', 'Curse', 'Silver']] }), 0, action('Chapel'));

/** Player 2 (index 1) must discard down to 3 from `victim`. */
const militiaGame = (victim: CardName[]): GameState =>
  play(gameWith({ hands: [['Militia'], victim] }), 0, action('Militia'));

const POACHER_KINGDOM: CardName[] = ['Poacher', 'Cellar', 'Chapel', 'Moat', 'Village', 'Workshop', 'Militia', 'Remodel', 'Smithy', 'Throne Room'];

/** Poacher with two empty Supply piles: draws the Duchy, then 2 cards to discard. */
function poacherGame(): GameState {
  const s = gameWith({ kingdom: POACHER_KINGDOM, hands: [['Poacher', 'Copper', 'Estate', 'Silver', 'Gold']], decks: [['Duchy']] });
  s.supply[cardId('Workshop')] = 0;
  s.supply[cardId('Remodel')] = 0;
  return play(s, 0, action('Poacher'));
}

describe('card lists for multi-card choices (options/card-lists.ts)', () => {
  describe('Cellar', () => {
    it('"discard_for_cellar Copper,Copper,Estate" discards 3 and draws 3 in one call, nothing left pending', () => {
      const s = cellarGame();
      const r = applyCommand(s, 0, 'discard_for_cellar Copper,Copper,Estate');
      expect(r.ok).to.equal(true);
      if (!r.ok) return;
      expect(hand(r.state, 0)).to.deep.equal(sortNames(['Silver', 'Gold', 'Gold', 'Gold']));
      expect(discard(r.state, 0)).to.deep.equal(sortNames(['Copper', 'Copper', 'Estate']));
      expect(pending(r.state)).to.equal(null);
      expect(r.moves).to.deep.equal([
        { type: 'discard_for_cellar', card: 'Copper' },
        { type: 'discard_for_cellar', card: 'Copper' },
        { type: 'discard_for_cellar', card: 'Estate' },
        { type: 'discard_for_cellar', card: null },
      ]);
      expect(r.events.filter((e) => e.type === 'discard')).to.have.length(3);
      expect(r.events.find((e) => e.type === 'draw')).to.deep.equal({ type: 'draw', player: 0, count: 3 });
      // Spacing and case are forgiving, as for single commands.
      expect(hand(ok(s, 0, 'discard_for_cellar copper, copper , estate'), 0)).to.deep.equal(sortNames(['Silver', 'Gold', 'Gold', 'Gold']));
    });

    it('the bare "discard_for_cellar" discards nothing and draws nothing', () => {
      const s = cellarGame();
      const after = ok(s, 0, 'discard_for_cellar');
      expect(hand(after, 0)).to.deep.equal(hand(s, 0));
      expect(pending(after)).to.equal(null);
    });

    it('listing the whole hand finishes once (the engine ends Cellar when the hand is empty)', () => {
      const s = cellarGame();
      const r = applyCommand(s, 0, 'discard_for_cellar Copper,Copper,Estate,Silver');
      expect(r.ok && hand(r.state, 0)).to.deep.equal(sortNames(['Duchy', 'Gold', 'Gold', 'Gold']));
      expect(r.ok && r.moves).to.have.length(4);
      expect(r.ok && pending(r.state)).to.equal(null);
    });

    it('a single card is still one pick (what the numbered options offer); the bare command finishes', () => {
      const s = cellarGame();
      const one = ok(s, 0, 'discard_for_cellar Copper');
      expect(pending(one)).to.deep.include({ k: 'discard_for_cellar', n: 1 });
      expect(hand(one, 0)).to.deep.equal(sortNames(['Copper', 'Estate', 'Silver']));
      // A list after single picks finishes the same decision.
      const rest = ok(one, 0, 'discard_for_cellar Copper,Estate');
      expect(hand(rest, 0)).to.deep.equal(sortNames(['Silver', 'Gold', 'Gold', 'Gold']));
      expect(pending(rest)).to.equal(null);
      expect(hand(ok(one, 0, 'discard_for_cellar'), 0)).to.deep.equal(sortNames(['Copper', 'Estate', 'Silver', 'Gold']));
    });

    it('a card not in hand, or more copies than in hand, is an error naming it; nothing changes', () => {
      const s = cellarGame();
      const missing = fails(s, 0, 'discard_for_cellar Copper,Province');
      expect(missing.code).to.equal('card_not_in_hand');
      expect(missing.message).to.equal('Province is not in your hand');
      const copies = fails(s, 0, 'discard_for_cellar Estate,Estate,Copper');
      expect(copies.code).to.equal('card_not_in_hand');
      expect(copies.message).to.equal('Only 1 Estate in your hand; 2 listed');
      expect(fails(s, 0, 'discard_for_cellar Copper,Goons').code).to.equal('unknown_card');
      expect(fails(s, 0, 'discard_for_cellar Copper,none').code).to.equal('parse_error');
    });

    it('the list is not an option: parseCommand refuses it, and the option commands stay single picks', () => {
      const s = cellarGame();
      const parsed = parseCommand(s, 0, 'discard_for_cellar Copper,Estate');
      expect(!parsed.ok && parsed.error.code).to.equal('chained_input');
      expect(optionsFor(s, 0).map((o) => o.command)).to.deep.equal([
        'discard_for_cellar Copper', 'discard_for_cellar Silver', 'discard_for_cellar Estate', 'discard_for_cellar',
      ]);
    });

    it('the wrong list for the pending choice, or from the wrong player, gets the engine\'s error', () => {
      const s = cellarGame();
      const wrong = fails(s, 0, 'trash_cards Copper,Estate');
      expect(wrong.code).to.equal('wrong_move_for_pending');
      expect(wrong.message).to.equal('Expected discard_for_cellar, got trash_cards');
      expect(fails(s, 1, 'discard_for_cellar Copper,Estate').code).to.equal('not_your_turn');
      const noDecision = gameWith({ hands: [['Copper', 'Copper', 'Estate', 'Estate', 'Silver']] });
      expect(fails(noDecision, 0, 'discard_for_cellar Copper,Estate').message).to.equal('Nothing is pending that discard_for_cellar answers');
    });

    it('a list is one step of a chain, all-or-nothing with the rest', () => {
      const s = cellarGame();
      const r = applyCommand(s, 0, 'discard_for_cellar Copper,Copper,Estate; play_all_treasures; buy Province');
      expect(r.ok).to.equal(true);
      if (r.ok) expect(discard(r.state, 0)).to.include('Province');
      const bad = fails(s, 0, 'discard_for_cellar Copper,Copper,Estate; buy Colony');
      expect(bad.step).to.equal(2);
      expect(bad.message).to.match(/^Step 2 \("buy Colony"\): /);
      const badList = fails(s, 0, 'end_phase; discard_for_cellar Copper,Estate');
      expect(badList.step).to.equal(1);
      const listFirst = fails(s, 0, 'discard_for_cellar Copper,Province; play_all_treasures');
      expect(listFirst.step).to.equal(1);
      expect(listFirst.command).to.equal('discard_for_cellar Copper,Province');
      expect(listFirst.message).to.equal('Step 1 ("discard_for_cellar Copper,Province"): Province is not in your hand');
    });
  });

  describe('Chapel', () => {
    it('"trash_cards Copper,Copper,Estate,Curse" trashes 4 in one command', () => {
      const r = applyCommand(chapelGame(), 0, 'trash_cards Copper,Copper,Estate,Curse');
      expect(r.ok).to.equal(true);
      if (!r.ok) return;
      expect(trash(r.state)).to.deep.equal(sortNames(['Copper', 'Copper', 'Curse', 'Estate']));
      expect(hand(r.state, 0)).to.deep.equal(sortNames(['Silver']));
      expect(pending(r.state)).to.equal(null);
      expect(r.moves).to.have.length(4);
    });

    it('fewer than 4 listed trashes exactly those and finishes; the bare command trashes nothing', () => {
      const s = chapelGame();
      const two = ok(s, 0, 'trash_cards Estate,Curse');
      expect(trash(two)).to.deep.equal(sortNames(['Curse', 'Estate']));
      expect(hand(two, 0)).to.deep.equal(sortNames(['Copper', 'Copper', 'Silver']));
      expect(pending(two)).to.equal(null);
      const none = ok(s, 0, 'trash_cards');
      expect(trash(none)).to.deep.equal(sortNames([]));
      expect(pending(none)).to.equal(null);
    });

    it('5 cards is an error ("at most 4"); after single picks the limit counts them', () => {
      const s = chapelGame();
      const five = fails(s, 0, 'trash_cards Copper,Copper,Estate,Curse,Silver');
      expect(five.code).to.equal('illegal_choice');
      expect(five.message).to.match(/at most 4/);
      const one = ok(s, 0, 'trash_cards Silver');
      expect(pending(one)).to.deep.include({ k: 'trash_cards', n: 1 });
      expect(fails(one, 0, 'trash_cards Copper,Copper,Estate,Curse').message).to.match(/at most 3 more/);
      const rest = ok(one, 0, 'trash_cards Copper,Copper,Estate');
      expect(trash(rest)).to.deep.equal(sortNames(['Copper', 'Copper', 'Silver', 'Estate']));
      expect(hand(rest, 0)).to.deep.equal(sortNames(['Curse']));
      expect(pending(rest)).to.equal(null);
    });

    it('a card not in hand is an error naming it; nothing changes', () => {
      const e = fails(chapelGame(), 0, 'trash_cards Copper,Duchy');
      expect(e.code).to.equal('card_not_in_hand');
      expect(e.message).to.equal('Duchy is not in your hand');
    });
  });

  describe('Militia', () => {
    it('the victim discards exactly 2 with one list', () => {
      const s = militiaGame(['Copper', 'Copper', 'Estate', 'Estate', 'Silver']);
      expect(pending(s)).to.deep.include({ k: 'discard_for_militia', p: 1 });
      const after = ok(s, 1, 'discard_for_militia Estate,Estate');
      expect(hand(after, 1)).to.deep.equal(sortNames(['Copper', 'Copper', 'Silver']));
      expect(discard(after, 1)).to.deep.equal(sortNames(['Estate', 'Estate']));
      expect(pending(after)).to.equal(null);
      // Separate commands (one pick each) still work as before.
      expect(hand(ok(s, 1, 'discard_for_militia Estate, discard_for_militia Estate'), 1)).to.deep.equal(sortNames(['Copper', 'Copper', 'Silver']));
    });

    it('the wrong number of cards is an error naming the required count; nothing changes', () => {
      const s = militiaGame(['Copper', 'Copper', 'Estate', 'Estate', 'Silver']);
      const three = fails(s, 1, 'discard_for_militia Estate,Estate,Copper');
      expect(three.code).to.equal('illegal_choice');
      expect(three.message).to.equal('Militia: discard exactly 2 card(s) to get down to 3; 3 listed');
      const six = militiaGame(['Copper', 'Copper', 'Estate', 'Estate', 'Silver', 'Gold']);
      expect(fails(six, 1, 'discard_for_militia Estate,Estate').message).to.match(/exactly 3 card/);
      expect(hand(ok(six, 1, 'discard_for_militia Estate,Estate,Copper'), 1)).to.deep.equal(sortNames(['Copper', 'Silver', 'Gold']));
      expect(fails(s, 1, 'discard_for_militia Estate,Duchy').message).to.equal('Duchy is not in your hand');
    });

    it('when the rest is all one card the engine discards it itself; the outcome is the listed cards', () => {
      const s = militiaGame(['Estate', 'Copper', 'Copper', 'Copper', 'Copper']);
      const after = ok(s, 1, 'discard_for_militia Estate,Copper');
      expect(hand(after, 1)).to.deep.equal(sortNames(['Copper', 'Copper', 'Copper']));
      expect(discard(after, 1)).to.deep.equal(sortNames(['Copper', 'Estate']));
      expect(pending(after)).to.equal(null);
    });
  });

  describe('Poacher', () => {
    it('discards exactly the required number with one list', () => {
      const s = poacherGame();
      expect(pending(s)).to.deep.include({ k: 'discard_for_poacher', n: 2 });
      const after = ok(s, 0, 'discard_for_poacher Estate,Duchy');
      expect(hand(after, 0)).to.deep.equal(sortNames(['Copper', 'Silver', 'Gold']));
      expect(pending(after)).to.equal(null);
      const wrong = fails(s, 0, 'discard_for_poacher Estate,Duchy,Copper');
      expect(wrong.message).to.equal('Poacher: discard exactly 2 card(s); 3 listed');
      // One card is a single pick, as the options offer.
      expect(pending(ok(s, 0, 'discard_for_poacher Estate'))).to.deep.include({ k: 'discard_for_poacher', n: 1 });
    });
  });

  describe('Throne Room on Cellar', () => {
    const throneCellar = (): GameState => {
      const s = gameWith({ hands: [['Throne Room', 'Cellar', 'Copper', 'Estate', 'Silver']], decks: [['Gold', 'Gold', 'Duchy', 'Province']] });
      const t = play(s, 0, action('Throne Room'));
      return play(t, 0, { type: 'select_action_for_throne', card: 'Cellar' });
    };

    it('a list answers each play of Cellar', () => {
      const first = ok(throneCellar(), 0, 'discard_for_cellar Copper,Estate');
      expect(hand(first, 0)).to.deep.equal(sortNames(['Silver', 'Gold', 'Gold']));
      expect(pending(first)).to.deep.include({ k: 'discard_for_cellar', n: 0 });
      const second = ok(first, 0, 'discard_for_cellar Silver,Gold');
      expect(hand(second, 0)).to.deep.equal(sortNames(['Gold', 'Duchy', 'Province']));
      expect(pending(second)).to.equal(null);
      expect(second.actions).to.equal(2);
    });

    it('both plays in one chain', () => {
      const both = ok(throneCellar(), 0, 'discard_for_cellar Copper,Estate; discard_for_cellar Silver,Gold');
      expect(hand(both, 0)).to.deep.equal(sortNames(['Gold', 'Duchy', 'Province']));
      expect(pending(both)).to.equal(null);
    });

    it('a first list that empties the hand leaves the replayed Cellar\'s choice open', () => {
      const s = gameWith({ hands: [['Throne Room', 'Cellar', 'Copper', 'Estate']], decks: [['Gold', 'Duchy', 'Province']] });
      const t = play(play(s, 0, action('Throne Room')), 0, { type: 'select_action_for_throne', card: 'Cellar' });
      const first = ok(t, 0, 'discard_for_cellar Copper,Estate');
      expect(hand(first, 0)).to.deep.equal(sortNames(['Gold', 'Duchy']));
      expect(pending(first)).to.deep.include({ k: 'discard_for_cellar', n: 0 });
    });
  });

  describe('through the game session (executeMove)', () => {
    const ann = { userId: 'u-ann', name: 'Ann' };
    const bob = { userId: 'u-bob', name: 'Bob' };

    function sessionWith(state: GameState): GameSession {
      const { session } = createSession({ gameId: 'g-list', host: ann, seats: [{ type: 'me' }, { type: 'open' }], seed: 3, now: 0 });
      joinSession(session, bob);
      session.game = state;
      return session;
    }

    function sessionError(run: () => unknown): SessionError {
      try {
        run();
      } catch (e) {
        expect(e).to.be.instanceOf(SessionError);
        return e as SessionError;
      }
      throw new Error('no SessionError thrown');
    }

    it('Cellar and Chapel lists finish the choice; the view has no pending effect', () => {
      const session = sessionWith(gameWith({ hands: [['Cellar', 'Copper', 'Copper', 'Estate', 'Silver']], decks: [['Gold', 'Gold', 'Gold']] }));
      executeMove(session, ann.userId, 'play_action Cellar');
      expect(viewFor(session, ann.userId, { message: '' }).pendingEffect).to.deep.include({ card: 'Cellar', effect: 'discard_for_cellar' });
      const { events } = executeMove(session, ann.userId, 'discard_for_cellar Copper,Copper,Estate');
      expect(events.filter((line) => /discard/i.test(line))).to.have.length(3);
      expect(session.moves).to.equal(5);
      const view = viewFor(session, ann.userId, { message: '' });
      expect(view.pendingEffect).to.equal(null);
      expect(hand(session.game!, 0)).to.deep.equal(sortNames(['Silver', 'Gold', 'Gold', 'Gold']));

      const chapel = sessionWith(gameWith({ hands: [['Chapel', 'Copper', 'Copper', 'Estate', 'Curse', 'Silver']] }));
      executeMove(chapel, ann.userId, 'play_action Chapel');
      const before = JSON.stringify(chapel);
      const error = sessionError(() => executeMove(chapel, ann.userId, 'trash_cards Copper,Copper,Estate,Curse,Silver'));
      expect(error.code).to.equal('bad_request');
      expect(error.message).to.match(/at most 4/);
      expect(error.details.validMoves).to.include('trash_cards');
      expect(JSON.stringify(chapel)).to.equal(before);
      executeMove(chapel, ann.userId, 'trash_cards Copper,Copper,Estate,Curse');
      expect(trash(chapel.game!)).to.deep.equal(sortNames(['Copper', 'Copper', 'Curse', 'Estate']));
      expect(viewFor(chapel, ann.userId, { message: '' }).pendingEffect).to.equal(null);
    });

    it('the Militia victim answers with a list of exactly the required count', () => {
      const session = sessionWith(gameWith({ hands: [['Militia'], ['Copper', 'Copper', 'Estate', 'Estate', 'Silver']] }));
      executeMove(session, ann.userId, 'play_action Militia');
      expect(viewFor(session, bob.userId, { message: '' }).toMove).to.equal(1);
      const before = JSON.stringify(session);
      const error = sessionError(() => executeMove(session, bob.userId, 'discard_for_militia Estate,Estate,Copper'));
      expect(error.message).to.match(/exactly 2 card/);
      expect(JSON.stringify(session)).to.equal(before);
      executeMove(session, bob.userId, 'discard_for_militia Estate,Estate');
      expect(hand(session.game!, 1)).to.deep.equal(sortNames(['Copper', 'Copper', 'Silver']));
      expect(viewFor(session, ann.userId, { message: '' })).to.deep.include({ toMove: 0, pendingEffect: null });
    });
  });
});
