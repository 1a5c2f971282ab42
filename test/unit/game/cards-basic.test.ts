import { expect } from 'chai';
import { action, deckTopFirst, discard, gameWith, hand, pending, play, playAll, rejects, trash } from './fixtures.js';
import type { CardName } from '../../../actors/game/engine/index.js';

const K1E: CardName[] = ['Adventurer', 'Chancellor', 'Feast', 'Spy', 'Thief', 'Woodcutter', 'Festival', 'Laboratory', 'Market', 'Council Room'];
const K_WITCH: CardName[] = ['Witch', 'Moat', 'Village', 'Smithy', 'Cellar', 'Chapel', 'Workshop', 'Militia', 'Remodel', 'Mine'];

describe('cards without choices (engine/effects/basic-actions.ts, deck-choices.ts)', () => {
  it('Village: +1 Card, +2 Actions', () => {
    const s = play(gameWith({ hands: [['Village', 'Copper']], decks: [['Gold', 'Silver']] }), 0, action('Village'));
    expect(hand(s, 0)).to.deep.equal(['Copper', 'Gold']);
    expect(s.actions).to.equal(2);
  });

  it('Smithy: +3 Cards', () => {
    const s = play(gameWith({ hands: [['Smithy']], decks: [['Gold', 'Silver', 'Estate', 'Duchy']] }), 0, action('Smithy'));
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold', 'Estate']);
    expect(deckTopFirst(s, 0)).to.deep.equal(['Duchy']);
    expect(s.actions).to.equal(0);
  });

  it('Laboratory: +2 Cards, +1 Action; Market: +1 Card +1 Action +1 Buy +$1; Festival: +2 Actions +1 Buy +$2', () => {
    let s = gameWith({ kingdom: K1E, hands: [['Laboratory', 'Market', 'Festival']], decks: [['Gold', 'Silver', 'Copper']] });
    s = play(s, 0, action('Laboratory'));
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold', 'Festival', 'Market']);
    expect(s.actions).to.equal(1);
    s = play(s, 0, action('Market'));
    expect(s.actions).to.equal(1);
    expect(s.buys).to.equal(2);
    expect(s.coins).to.equal(1);
    expect(hand(s, 0)).to.include('Copper');
    s = play(s, 0, action('Festival'));
    expect([s.actions, s.buys, s.coins]).to.deep.equal([2, 3, 3]);
  });

  it('Woodcutter: +1 Buy, +$2; the buys can be used', () => {
    let s = gameWith({ kingdom: K1E, hands: [['Woodcutter', 'Copper', 'Copper', 'Copper', 'Copper']] });
    s = playAll(s, [[0, action('Woodcutter')], [0, { type: 'play_all_treasures' }]]);
    expect([s.buys, s.coins]).to.deep.equal([2, 6]);
    s = playAll(s, [[0, { type: 'buy', card: 'Silver' }], [0, { type: 'buy', card: 'Silver' }]]);
    expect(discard(s, 0)).to.deep.equal(['Silver', 'Silver']);
  });

  it('Council Room: +4 Cards, +1 Buy, each other player draws a card (Moat does not matter: not an Attack)', () => {
    let s = gameWith({ players: 3, kingdom: K1E, hands: [['Council Room'], ['Moat'], []], decks: [['Gold', 'Gold', 'Gold', 'Gold', 'Gold'], ['Silver'], ['Duchy']] });
    s = play(s, 0, action('Council Room'));
    expect(hand(s, 0)).to.deep.equal(['Gold', 'Gold', 'Gold', 'Gold']);
    expect(s.buys).to.equal(2);
    expect(hand(s, 1)).to.deep.equal(['Silver', 'Moat']);
    expect(hand(s, 2)).to.deep.equal(['Duchy']);
    expect(pending(s)).to.equal(null);
  });

  it('Moat played as an Action: +2 Cards', () => {
    const s = play(gameWith({ hands: [['Moat']], decks: [['Gold', 'Silver']] }), 0, action('Moat'));
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold']);
  });

  it('drawing from an empty deck shuffles the discard pile (and only then)', () => {
    const s = play(gameWith({ hands: [['Smithy']], decks: [['Gold']], discards: [['Silver', 'Silver', 'Silver']] }), 0, action('Smithy'));
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Silver', 'Gold']);
    expect(s.players[0].deck).to.have.length(1);
    expect(s.players[0].discard).to.have.length(0);
  });

  it('draws what it can when deck and discard run out', () => {
    const s = play(gameWith({ hands: [['Smithy']], decks: [['Gold']], discards: [[]] }), 0, action('Smithy'));
    expect(hand(s, 0)).to.deep.equal(['Gold']);
  });

  it('Adventurer: reveals until 2 Treasures, keeps them, discards the rest', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Adventurer']], decks: [['Estate', 'Silver', 'Duchy', 'Gold', 'Copper']] }), 0, action('Adventurer'));
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold']);
    expect(discard(s, 0)).to.deep.equal(['Estate', 'Duchy']);
    expect(deckTopFirst(s, 0)).to.deep.equal(['Copper']);
    expect(s.players[0].aside).to.deep.equal([]);
  });

  it('Adventurer: revealed cards are not shuffled into the new deck; stops when out of cards', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Adventurer']], decks: [['Estate', 'Copper']], discards: [['Duchy']] }), 0, action('Adventurer'));
    expect(hand(s, 0)).to.deep.equal(['Copper']);
    expect(discard(s, 0)).to.deep.equal(['Estate', 'Duchy']);
    expect(s.players[0].deck).to.deep.equal([]);
  });

  it('Chancellor: +$2 and may put the deck into the discard pile', () => {
    let s = play(gameWith({ kingdom: K1E, hands: [['Chancellor']], decks: [['Gold', 'Silver']] }), 0, action('Chancellor'));
    expect(s.coins).to.equal(2);
    expect(pending(s)!.k).to.equal('chancellor_decision');
    const yes = play(s, 0, { type: 'chancellor_decision', choice: true });
    expect(yes.players[0].deck).to.deep.equal([]);
    expect(discard(yes, 0)).to.deep.equal(['Silver', 'Gold']);
    const no = play(s, 0, { type: 'chancellor_decision', choice: false });
    expect(deckTopFirst(no, 0)).to.deep.equal(['Gold', 'Silver']);
    s = play(gameWith({ kingdom: K1E, hands: [['Chancellor']], decks: [[]] }), 0, action('Chancellor'));
    expect(pending(s)).to.equal(null);
  });

  it('Witch: +2 Cards, each other player gains a Curse in turn order while Curses last', () => {
    let s = gameWith({ players: 3, kingdom: K_WITCH, hands: [['Witch'], [], []], decks: [['Gold', 'Gold']] });
    s = play(s, 0, action('Witch'));
    expect(hand(s, 0)).to.deep.equal(['Gold', 'Gold']);
    expect(discard(s, 1)).to.deep.equal(['Curse']);
    expect(discard(s, 2)).to.deep.equal(['Curse']);
    expect(s.supply[6]).to.equal(18);
    let t = gameWith({ players: 3, kingdom: K_WITCH, hands: [[], ['Witch'], []], current: 1 });
    t.supply[6] = 1;
    t = play(t, 1, action('Witch'));
    expect(discard(t, 2)).to.deep.equal(['Curse']);
    expect(discard(t, 0)).to.deep.equal([]);
  });

  it('Feast: trashes itself and gains a card costing up to $5', () => {
    let s = play(gameWith({ kingdom: K1E, hands: [['Feast']] }), 0, action('Feast'));
    expect(trash(s)).to.deep.equal(['Feast']);
    expect(s.players[0].inPlay).to.deep.equal([]);
    expect(pending(s)!.k).to.equal('gain_card');
    rejects(s, 0, { type: 'gain_card', card: 'Province' }, 'illegal_choice');
    s = play(s, 0, { type: 'gain_card', card: 'Laboratory' });
    expect(discard(s, 0)).to.deep.equal(['Laboratory']);
    expect(pending(s)).to.equal(null);
  });
});
