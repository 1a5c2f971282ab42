import { expect } from 'chai';
import { legalMoves, type CardName } from '../../../actors/game/engine/index.js';
import { ESTATE, PROVINCE, SILVER, CURSE } from '../../../actors/game/engine/cards.js';
import { action, deckTopFirst, discard, gameWith, hand, pending, play, playAll, rejects, trash } from './fixtures.js';

const K2E: CardName[] = ['Artisan', 'Harbinger', 'Vassal', 'Sentry', 'Poacher', 'Moneylender', 'Library', 'Laboratory', 'Smithy', 'Village'];

describe('cards with choices (engine/effects/hand-choices.ts, gains.ts, deck-choices.ts)', () => {
  describe('Cellar', () => {
    it('+1 Action; discards one card at a time, then draws as many', () => {
      let s = play(gameWith({ hands: [['Cellar', 'Estate', 'Estate', 'Copper', 'Silver']], decks: [['Gold', 'Gold', 'Province']] }), 0, action('Cellar'));
      expect(s.actions).to.equal(1);
      expect(pending(s)).to.deep.include({ k: 'discard_for_cellar', p: 0, n: 0 });
      s = playAll(s, [[0, { type: 'discard_for_cellar', card: 'Estate' }], [0, { type: 'discard_for_cellar', card: 'Estate' }]]);
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Silver']);
      s = play(s, 0, { type: 'discard_for_cellar', card: null });
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Silver', 'Gold', 'Gold']);
      expect(discard(s, 0)).to.deep.equal(['Estate', 'Estate']);
      expect(pending(s)).to.equal(null);
    });

    it('discarding the whole hand finishes at once; a card not in hand is rejected', () => {
      let s = play(gameWith({ hands: [['Cellar', 'Estate']], decks: [['Gold', 'Gold']] }), 0, action('Cellar'));
      rejects(s, 0, { type: 'discard_for_cellar', card: 'Gold' }, 'card_not_in_hand');
      s = play(s, 0, { type: 'discard_for_cellar', card: 'Estate' });
      expect(pending(s)).to.equal(null);
      expect(hand(s, 0)).to.deep.equal(['Gold']);
    });
  });

  describe('Chapel', () => {
    it('trashes up to 4 cards and then stops asking', () => {
      let s = play(gameWith({ hands: [['Chapel', 'Estate', 'Estate', 'Copper', 'Copper', 'Silver']] }), 0, action('Chapel'));
      s = playAll(s, [[0, { type: 'trash_cards', card: 'Estate' }], [0, { type: 'trash_cards', card: 'Estate' }], [0, { type: 'trash_cards', card: 'Copper' }]]);
      expect(pending(s)!.k).to.equal('trash_cards');
      s = play(s, 0, { type: 'trash_cards', card: 'Copper' });
      expect(pending(s)).to.equal(null);
      expect(trash(s)).to.deep.equal(['Copper', 'Copper', 'Estate', 'Estate']);
      expect(hand(s, 0)).to.deep.equal(['Silver']);
    });

    it('may stop early or trash nothing', () => {
      let s = play(gameWith({ hands: [['Chapel', 'Estate', 'Copper']] }), 0, action('Chapel'));
      s = playAll(s, [[0, { type: 'trash_cards', card: 'Estate' }], [0, { type: 'trash_cards', card: null }]]);
      expect(trash(s)).to.deep.equal(['Estate']);
      expect(hand(s, 0)).to.deep.equal(['Copper']);
    });
  });

  describe('Poacher', () => {
    it('+1 Card +1 Action +$1 and no discard without empty piles', () => {
      const s = play(gameWith({ kingdom: K2E, hands: [['Poacher', 'Copper']], decks: [['Gold']] }), 0, action('Poacher'));
      expect([s.actions, s.coins]).to.deep.equal([1, 1]);
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Gold']);
      expect(pending(s)).to.equal(null);
    });

    it('discards one card per empty Supply pile, the player choosing which', () => {
      let s = gameWith({ kingdom: K2E, hands: [['Poacher', 'Copper', 'Estate', 'Silver']], decks: [['Gold']] });
      s.supply[CURSE] = 0;
      s.supply[ESTATE] = 0;
      s = play(s, 0, action('Poacher'));
      expect(pending(s)).to.deep.include({ k: 'discard_for_poacher', n: 2 });
      s = playAll(s, [[0, { type: 'discard_for_poacher', card: 'Estate' }], [0, { type: 'discard_for_poacher', card: 'Copper' }]]);
      expect(pending(s)).to.equal(null);
      expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold']);
    });

    it('discards the whole hand without asking when it is too small', () => {
      let s = gameWith({ kingdom: K2E, hands: [['Poacher']], decks: [['Gold']] });
      s.supply[CURSE] = 0;
      s.supply[ESTATE] = 0;
      s = play(s, 0, action('Poacher'));
      expect(pending(s)).to.equal(null);
      expect(discard(s, 0)).to.deep.equal(['Gold']);
    });
  });

  describe('Moneylender', () => {
    it('may trash a Copper for +$3', () => {
      const s = play(gameWith({ kingdom: K2E, hands: [['Moneylender', 'Copper', 'Estate']] }), 0, action('Moneylender'));
      const yes = play(s, 0, { type: 'trash_copper', choice: true });
      expect([yes.coins, trash(yes)]).to.deep.equal([3, ['Copper']]);
      const no = play(s, 0, { type: 'trash_copper', choice: false });
      expect([no.coins, trash(no), hand(no, 0)]).to.deep.equal([0, [], ['Copper', 'Estate']]);
    });

    it('does nothing without a Copper', () => {
      expect(pending(play(gameWith({ kingdom: K2E, hands: [['Moneylender', 'Estate']] }), 0, action('Moneylender')))).to.equal(null);
    });
  });

  describe('Workshop', () => {
    it('gains a card costing up to $4 to the discard pile', () => {
      let s = play(gameWith({ hands: [['Workshop']] }), 0, action('Workshop'));
      const options = legalMoves(s, 0).map((m) => (m as { card: string }).card);
      expect(options).to.include.members(['Smithy', 'Silver', 'Estate', 'Copper', 'Curse', 'Village']);
      expect(options).to.not.include('Duchy');
      rejects(s, 0, { type: 'gain_card', card: 'Duchy' }, 'illegal_choice');
      s = play(s, 0, { type: 'gain_card', card: 'Smithy' });
      expect(discard(s, 0)).to.deep.equal(['Smithy']);
    });
  });

  describe('Remodel', () => {
    it('step 1 trashes a card from hand, step 2 gains one costing up to $2 more', () => {
      let s = play(gameWith({ hands: [['Remodel', 'Estate', 'Copper']] }), 0, action('Remodel'));
      expect(pending(s)!.k).to.equal('trash_for_remodel');
      s = play(s, 0, { type: 'trash_for_remodel', card: 'Estate' });
      expect(pending(s)).to.deep.include({ k: 'gain_card', max: 4, step: 2 });
      rejects(s, 0, { type: 'gain_card', card: 'Duchy' }, 'illegal_choice');
      s = play(s, 0, { type: 'gain_card', card: 'Smithy' });
      expect(trash(s)).to.deep.equal(['Estate']);
      expect(discard(s, 0)).to.deep.equal(['Smithy']);
      expect(hand(s, 0)).to.deep.equal(['Copper']);
    });

    it('Gold can become a Province', () => {
      let s = play(gameWith({ hands: [['Remodel', 'Gold', 'Copper']] }), 0, action('Remodel'));
      s = playAll(s, [[0, { type: 'trash_for_remodel', card: 'Gold' }], [0, { type: 'gain_card', card: 'Province' }]]);
      expect(discard(s, 0)).to.deep.equal(['Province']);
    });
  });

  describe('Mine', () => {
    it('trashes a Treasure and gains one costing up to $3 more into the hand', () => {
      let s = play(gameWith({ hands: [['Mine', 'Copper', 'Silver', 'Estate']] }), 0, action('Mine'));
      expect(legalMoves(s, 0)).to.deep.equal([
        { type: 'trash_for_mine', card: 'Copper' },
        { type: 'trash_for_mine', card: 'Silver' },
        { type: 'trash_for_mine', card: null },
      ]);
      rejects(s, 0, { type: 'trash_for_mine', card: 'Estate' }, 'not_a_treasure');
      s = play(s, 0, { type: 'trash_for_mine', card: 'Silver' });
      expect(legalMoves(s, 0)).to.deep.equal([{ type: 'gain_card', card: 'Gold' }, { type: 'gain_card', card: 'Silver' }, { type: 'gain_card', card: 'Copper' }]);
      rejects(s, 0, { type: 'gain_card', card: 'Mine' }, 'illegal_choice');
      s = play(s, 0, { type: 'gain_card', card: 'Gold' });
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Gold', 'Estate']);
      expect(trash(s)).to.deep.equal(['Silver']);
      expect(play(s, 0, { type: 'play_all_treasures' }).coins).to.equal(4);
    });

    it('is optional (2E): may trash nothing', () => {
      const s = play(play(gameWith({ hands: [['Mine', 'Copper']] }), 0, action('Mine')), 0, { type: 'trash_for_mine', card: null });
      expect(hand(s, 0)).to.deep.equal(['Copper']);
      expect(pending(s)).to.equal(null);
    });
  });

  describe('Artisan', () => {
    it('gains a card up to $5 to hand, then puts a card from hand onto the deck', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Artisan', 'Copper', 'Estate']], decks: [['Gold']] }), 0, action('Artisan'));
      expect(pending(s)).to.deep.include({ k: 'gain_card', max: 5, toHand: true, step: 1 });
      rejects(s, 0, { type: 'topdeck_card', card: 'Copper' }, 'wrong_move_for_pending');
      s = play(s, 0, { type: 'gain_card', card: 'Laboratory' });
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Estate', 'Laboratory']);
      expect(pending(s)!.k).to.equal('topdeck_card');
      s = play(s, 0, { type: 'topdeck_card', card: 'Laboratory' });
      expect(deckTopFirst(s, 0)).to.deep.equal(['Laboratory', 'Gold']);
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Estate']);
      expect(pending(s)).to.equal(null);
    });

    it('with an empty hand, the gained card goes straight back onto the deck', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Artisan']] }), 0, action('Artisan'));
      s = play(s, 0, { type: 'gain_card', card: 'Silver' });
      expect(pending(s)).to.equal(null);
      expect(deckTopFirst(s, 0)[0]).to.equal('Silver');
      expect(s.players[0].hand).to.deep.equal([]);
    });
  });

  describe('Harbinger', () => {
    it('+1 Card +1 Action; may put a card from the discard pile onto the deck', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Harbinger']], decks: [['Copper', 'Estate']], discards: [['Gold', 'Estate']] }), 0, action('Harbinger'));
      expect(s.actions).to.equal(1);
      expect(legalMoves(s, 0)).to.deep.equal([
        { type: 'harbinger_topdeck', card: 'Gold' },
        { type: 'harbinger_topdeck', card: 'Estate' },
        { type: 'harbinger_topdeck', card: null },
      ]);
      s = play(s, 0, { type: 'harbinger_topdeck', card: 'Gold' });
      expect(deckTopFirst(s, 0)).to.deep.equal(['Gold', 'Estate']);
      expect(discard(s, 0)).to.deep.equal(['Estate']);
    });

    it('asks nothing when the discard pile is empty', () => {
      expect(pending(play(gameWith({ kingdom: K2E, hands: [['Harbinger']], decks: [['Copper']], discards: [[]] }), 0, action('Harbinger')))).to.equal(null);
    });
  });

  describe('Vassal', () => {
    it('+$2, discards the top card, and may play it if it is an Action (using no Action)', () => {
      const s = play(gameWith({ kingdom: K2E, hands: [['Vassal']], decks: [['Smithy', 'Gold', 'Gold', 'Gold']] }), 0, action('Vassal'));
      expect(s.coins).to.equal(2);
      expect(pending(s)).to.deep.include({ k: 'vassal_play', c: 30 });
      const yes = play(s, 0, { type: 'vassal_play', choice: true });
      expect(hand(yes, 0)).to.deep.equal(['Gold', 'Gold', 'Gold']);
      expect(yes.players[0].inPlay.length).to.equal(2);
      expect(yes.actions).to.equal(0);
      const no = play(s, 0, { type: 'vassal_play', choice: false });
      expect(discard(no, 0)).to.deep.equal(['Smithy']);
      expect(hand(no, 0)).to.deep.equal([]);
    });

    it('a non-Action is just discarded', () => {
      const s = play(gameWith({ kingdom: K2E, hands: [['Vassal']], decks: [['Gold']] }), 0, action('Vassal'));
      expect(pending(s)).to.equal(null);
      expect(discard(s, 0)).to.deep.equal(['Gold']);
    });
  });

  describe('Sentry', () => {
    it('looks at the top 2: trash, discard or keep each, then order the kept ones', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Sentry']], decks: [['Copper', 'Estate', 'Gold', 'Silver', 'Duchy']] }), 0, action('Sentry'));
      expect(s.actions).to.equal(1);
      expect(pending(s)).to.deep.include({ k: 'sentry_decision', c: ESTATE, left: 2 });
      rejects(s, 0, { type: 'sentry_trash', card: 'Gold' }, 'illegal_choice');
      s = play(s, 0, { type: 'sentry_trash', card: 'Estate' });
      expect(pending(s)).to.deep.include({ k: 'sentry_decision', c: 2, left: 1 });
      s = play(s, 0, { type: 'sentry_keep', card: 'Gold' });
      expect(pending(s)).to.equal(null);
      expect(trash(s)).to.deep.equal(['Estate']);
      expect(deckTopFirst(s, 0)).to.deep.equal(['Gold', 'Silver', 'Duchy']);
    });

    it('keeping two different cards asks which goes on top', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Sentry']], decks: [['Copper', 'Silver', 'Gold', 'Duchy']] }), 0, action('Sentry'));
      s = playAll(s, [[0, { type: 'sentry_keep', card: 'Silver' }], [0, { type: 'sentry_keep', card: 'Gold' }]]);
      expect(pending(s)!.k).to.equal('sentry_order');
      s = play(s, 0, { type: 'sentry_order', card: 'Gold' });
      expect(deckTopFirst(s, 0)).to.deep.equal(['Gold', 'Silver', 'Duchy']);
      let t = play(gameWith({ kingdom: K2E, hands: [['Sentry']], decks: [['Copper', 'Silver', 'Gold', 'Duchy']] }), 0, action('Sentry'));
      t = playAll(t, [[0, { type: 'sentry_discard', card: 'Silver' }], [0, { type: 'sentry_keep', card: 'Gold' }]]);
      expect(pending(t)).to.equal(null);
      expect(discard(t, 0)).to.deep.equal(['Silver']);
    });

    it('shuffles the discard pile under the remaining card when the deck is short', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Sentry']], decks: [['Copper', 'Province']], discards: [['Curse']] }), 0, action('Sentry'));
      expect(pending(s)).to.deep.include({ c: PROVINCE, left: 2 });
      s = play(s, 0, { type: 'sentry_discard', card: 'Province' });
      expect(pending(s)).to.deep.include({ c: CURSE, left: 1 });
      s = play(s, 0, { type: 'sentry_trash', card: 'Curse' });
      expect(trash(s)).to.deep.equal(['Curse']);
      expect(discard(s, 0)).to.deep.equal(['Province']);
    });
  });

  describe('Library', () => {
    it('draws to 7; each Action drawn is a choice: set aside (distinct move) or keep', () => {
      let s = play(gameWith({ kingdom: K2E, hands: [['Library', 'Copper', 'Copper', 'Copper', 'Copper']], decks: [['Village', 'Silver', 'Smithy', 'Gold', 'Duchy']] }), 0, action('Library'));
      expect(pending(s)).to.deep.include({ k: 'library_set_aside', c: 35 });
      expect(legalMoves(s, 0)).to.deep.equal([{ type: 'library_set_aside', card: 'Village' }, { type: 'library_keep', card: 'Village' }]);
      rejects(s, 0, { type: 'library_set_aside', card: 'Smithy' }, 'illegal_choice');
      s = play(s, 0, { type: 'library_set_aside', card: 'Village' });
      expect(s.players[0].aside).to.deep.equal([35]);
      expect(pending(s)).to.deep.include({ k: 'library_set_aside', c: 30 });
      s = play(s, 0, { type: 'library_keep', card: 'Smithy' });
      expect(pending(s)).to.equal(null);
      expect(hand(s, 0)).to.deep.equal(['Copper', 'Copper', 'Copper', 'Copper', 'Silver', 'Gold', 'Smithy']);
      expect(discard(s, 0)).to.deep.equal(['Village']);
      expect(s.players[0].aside).to.deep.equal([]);
      expect(deckTopFirst(s, 0)).to.deep.equal(['Duchy']);
    });
  });

  it('Gardens and basic cards cannot be played as Actions', () => {
    const s = gameWith({ hands: [['Estate', 'Copper']] });
    rejects(s, 0, action('Estate'), 'not_an_action');
    expect(SILVER).to.equal(1);
  });
});
