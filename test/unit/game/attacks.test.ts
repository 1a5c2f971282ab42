import { expect } from 'chai';
import { legalMoves, playerToMove, type CardName } from '../../../actors/game/engine/index.js';
import { action, deckTopFirst, discard, gameWith, hand, pending, play, playAll, rejects, trash } from './fixtures.js';

const K_ATTACKS: CardName[] = ['Militia', 'Bureaucrat', 'Witch', 'Bandit', 'Spy', 'Thief', 'Moat', 'Throne Room', 'Village', 'Smithy'];
const five: CardName[] = ['Copper', 'Copper', 'Silver', 'Estate', 'Duchy'];

describe('attacks and Moat (engine/effects/attacks.ts)', () => {
  describe('Militia', () => {
    it('+$2; every other player discards down to 3, in turn order, each choosing their cards', () => {
      let s = gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Militia'], five, ['Copper', 'Copper', 'Copper', 'Estate']] });
      s = play(s, 0, action('Militia'));
      expect(s.coins).to.equal(2);
      expect(pending(s)).to.deep.include({ k: 'discard_for_militia', p: 1 });
      expect(playerToMove(s)).to.equal(1);
      rejects(s, 0, { type: 'discard_for_militia', card: 'Copper' }, 'not_your_turn');
      rejects(s, 2, { type: 'discard_for_militia', card: 'Copper' }, 'not_your_turn');
      s = play(s, 1, { type: 'discard_for_militia', card: 'Estate' });
      expect(pending(s)).to.deep.include({ k: 'discard_for_militia', p: 1 });
      s = play(s, 1, { type: 'discard_for_militia', card: 'Duchy' });
      expect(pending(s)).to.deep.include({ k: 'discard_for_militia', p: 2 });
      s = play(s, 2, { type: 'discard_for_militia', card: 'Estate' });
      expect(pending(s)).to.equal(null);
      expect(playerToMove(s)).to.equal(0);
      expect(hand(s, 1)).to.deep.equal(['Copper', 'Copper', 'Silver']);
      expect(hand(s, 2)).to.deep.equal(['Copper', 'Copper', 'Copper']);
    });

    it('starts with the attacker\'s left neighbour (attacker in seat 1 of 3 → seat 2, then seat 0)', () => {
      let s = gameWith({ players: 3, kingdom: K_ATTACKS, hands: [five, ['Militia'], five], current: 1 });
      s = play(s, 1, action('Militia'));
      expect(pending(s)!.p).to.equal(2);
      s = playAll(s, [[2, { type: 'discard_for_militia', card: 'Estate' }], [2, { type: 'discard_for_militia', card: 'Duchy' }]]);
      expect(pending(s)!.p).to.equal(0);
    });

    it('players with 3 or fewer cards, or only identical cards, are not asked', () => {
      const s = play(gameWith({ kingdom: K_ATTACKS, hands: [['Militia'], ['Copper', 'Copper', 'Copper', 'Copper', 'Copper']] }), 0, action('Militia'));
      expect(pending(s)).to.equal(null);
      expect(hand(s, 1)).to.deep.equal(['Copper', 'Copper', 'Copper']);
      expect(discard(s, 1)).to.deep.equal(['Copper', 'Copper']);
    });
  });

  describe('Moat', () => {
    for (const attack of ['Militia', 'Bureaucrat', 'Witch', 'Bandit', 'Spy', 'Thief'] as CardName[]) {
      it(`is the defender's own choice against ${attack}; revealing makes them unaffected`, () => {
        const base = gameWith({ kingdom: K_ATTACKS, hands: [[attack], ['Moat', 'Estate', 'Estate', 'Silver', 'Copper']], decks: [['Copper', 'Copper', 'Copper'], ['Gold', 'Silver', 'Estate']] });
        const s = play(base, 0, action(attack));
        expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 1, a: 0 });
        expect(legalMoves(s, 1)).to.deep.equal([{ type: 'reveal_moat', choice: true }, { type: 'reveal_moat', choice: false }]);
        const revealed = play(s, 1, { type: 'reveal_moat', choice: true });
        // Unaffected: hand, deck, discard and the trash are as before (only the attacker's own part happened).
        expect(hand(revealed, 1)).to.deep.equal(hand(base, 1));
        expect(deckTopFirst(revealed, 1)).to.deep.equal(deckTopFirst(base, 1));
        expect(discard(revealed, 1)).to.deep.equal([]);
        const declined = play(s, 1, { type: 'reveal_moat', choice: false });
        const affected = pending(declined) !== null
          || JSON.stringify([hand(declined, 1), deckTopFirst(declined, 1), discard(declined, 1)]) !== JSON.stringify([hand(base, 1), deckTopFirst(base, 1), []]);
        expect(affected, `${attack} should affect a player who does not reveal`).to.equal(true);
      });
    }

    it('each defender with Moat decides for themselves, in turn order, before the attack resolves', () => {
      let s = gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Witch'], ['Moat'], ['Moat']] });
      s = play(s, 0, action('Witch'));
      expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 1 });
      s = play(s, 1, { type: 'reveal_moat', choice: true });
      expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 2 });
      s = play(s, 2, { type: 'reveal_moat', choice: false });
      expect(discard(s, 1)).to.deep.equal([]);
      expect(discard(s, 2)).to.deep.equal(['Curse']);
    });
  });

  describe('Bureaucrat', () => {
    it('gains a Silver onto the deck; each other player topdecks a Victory card of their choice', () => {
      let s = gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Bureaucrat'], ['Estate', 'Duchy', 'Copper'], ['Copper', 'Copper']], decks: [['Gold'], ['Gold'], ['Gold']] });
      s = play(s, 0, action('Bureaucrat'));
      expect(deckTopFirst(s, 0)).to.deep.equal(['Silver', 'Gold']);
      expect(pending(s)).to.deep.include({ k: 'reveal_and_topdeck', p: 1 });
      expect(legalMoves(s, 1)).to.deep.equal([{ type: 'reveal_and_topdeck', card: 'Estate' }, { type: 'reveal_and_topdeck', card: 'Duchy' }]);
      rejects(s, 1, { type: 'reveal_and_topdeck', card: 'Copper' }, 'illegal_choice');
      s = play(s, 1, { type: 'reveal_and_topdeck', card: 'Duchy' });
      expect(deckTopFirst(s, 1)).to.deep.equal(['Duchy', 'Gold']);
      // Player 3 has no Victory card: reveals the hand, nothing to decide.
      expect(pending(s)).to.equal(null);
      expect(hand(s, 2)).to.deep.equal(['Copper', 'Copper']);
    });

    it('a single kind of Victory card is topdecked without asking', () => {
      const s = play(gameWith({ kingdom: K_ATTACKS, hands: [['Bureaucrat'], ['Estate', 'Estate', 'Copper']], decks: [[], ['Gold']] }), 0, action('Bureaucrat'));
      expect(pending(s)).to.equal(null);
      expect(deckTopFirst(s, 1)).to.deep.equal(['Estate', 'Gold']);
    });
  });

  describe('Bandit', () => {
    it('gains a Gold; victims trash a revealed non-Copper Treasure and discard the rest', () => {
      const s = play(gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Bandit'], [], []], decks: [[], ['Silver', 'Estate', 'Duchy'], ['Copper', 'Copper']] }), 0, action('Bandit'));
      expect(discard(s, 0)).to.deep.equal(['Gold']);
      expect(trash(s)).to.deep.equal(['Silver']);
      expect(discard(s, 1)).to.deep.equal(['Estate']);
      expect(discard(s, 2)).to.deep.equal(['Copper', 'Copper']);
      expect(deckTopFirst(s, 1)).to.deep.equal(['Duchy']);
    });

    it('the victim chooses when two different Treasures are revealed', () => {
      let s = play(gameWith({ kingdom: K_ATTACKS, hands: [['Bandit'], []], decks: [[], ['Silver', 'Gold']] }), 0, action('Bandit'));
      expect(pending(s)).to.deep.include({ k: 'bandit_trash', p: 1 });
      expect(legalMoves(s, 1)).to.deep.equal([{ type: 'bandit_trash', card: 'Silver' }, { type: 'bandit_trash', card: 'Gold' }]);
      s = play(s, 1, { type: 'bandit_trash', card: 'Silver' });
      expect(trash(s)).to.deep.equal(['Silver']);
      expect(discard(s, 1)).to.deep.equal(['Gold']);
      expect(s.players[1].aside).to.deep.equal([]);
    });
  });

  describe('Spy', () => {
    it('+1 Card +1 Action; the attacker decides about every player\'s top card, own first', () => {
      let s = gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Spy'], [], []], decks: [['Copper', 'Estate'], ['Gold'], ['Curse']] });
      s = play(s, 0, action('Spy'));
      expect(s.actions).to.equal(1);
      expect(hand(s, 0)).to.deep.equal(['Copper']);
      expect(pending(s)).to.deep.include({ k: 'spy_decision', p: 0, t: 0, c: 3 });
      s = play(s, 0, { type: 'spy_discard', card: 'Estate' });
      expect(pending(s)).to.deep.include({ k: 'spy_decision', p: 0, t: 1, c: 2 });
      rejects(s, 1, { type: 'spy_discard', card: 'Gold' }, 'not_your_turn');
      rejects(s, 0, { type: 'spy_discard', card: 'Curse' }, 'illegal_choice');
      s = play(s, 0, { type: 'spy_discard', card: 'Gold' });
      s = play(s, 0, { type: 'spy_keep', card: 'Curse' });
      expect(pending(s)).to.equal(null);
      expect(discard(s, 0)).to.deep.equal(['Estate']);
      expect(discard(s, 1)).to.deep.equal(['Gold']);
      expect(deckTopFirst(s, 2)).to.deep.equal(['Curse']);
    });

    it('Moat protects other players only; the Spy player still reveals their own card', () => {
      let s = play(gameWith({ kingdom: K_ATTACKS, hands: [['Spy'], ['Moat']], decks: [['Copper', 'Estate'], ['Gold']] }), 0, action('Spy'));
      s = play(s, 1, { type: 'reveal_moat', choice: true });
      expect(pending(s)).to.deep.include({ k: 'spy_decision', t: 0 });
      s = play(s, 0, { type: 'spy_keep', card: 'Estate' });
      expect(pending(s)).to.equal(null);
    });
  });

  describe('Thief', () => {
    it('the attacker picks which revealed Treasure is trashed and may gain it', () => {
      let s = play(gameWith({ kingdom: K_ATTACKS, hands: [['Thief'], []], decks: [[], ['Silver', 'Gold', 'Estate']] }), 0, action('Thief'));
      expect(pending(s)).to.deep.include({ k: 'thief_trash', p: 0, t: 1 });
      rejects(s, 1, { type: 'thief_trash', card: 'Gold' }, 'not_your_turn');
      s = play(s, 0, { type: 'thief_trash', card: 'Gold' });
      expect(trash(s)).to.deep.equal(['Gold']);
      expect(discard(s, 1)).to.deep.equal(['Silver']);
      expect(pending(s)).to.deep.include({ k: 'thief_gain', p: 0, c: 2 });
      const gained = play(s, 0, { type: 'thief_gain', choice: true });
      expect(trash(gained)).to.deep.equal([]);
      expect(discard(gained, 0)).to.deep.equal(['Gold']);
      const left = play(s, 0, { type: 'thief_gain', choice: false });
      expect(trash(left)).to.deep.equal(['Gold']);
    });

    it('one Treasure is trashed without a choice; no Treasure means everything is discarded', () => {
      let s = play(gameWith({ players: 3, kingdom: K_ATTACKS, hands: [['Thief'], [], []], decks: [[], ['Copper', 'Estate'], ['Estate', 'Duchy']] }), 0, action('Thief'));
      expect(trash(s)).to.deep.equal(['Copper']);
      expect(pending(s)).to.deep.include({ k: 'thief_gain', c: 0 });
      s = play(s, 0, { type: 'thief_gain', choice: false });
      expect(discard(s, 2)).to.deep.equal(['Estate', 'Duchy']);
      expect(pending(s)).to.equal(null);
    });
  });
});
