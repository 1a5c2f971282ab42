/** Cross-card interactions: cards played from unusual places, attacks doubled, decisions nested. */
import { expect } from 'chai';
import type { CardName } from '../../../actors/game/engine/index.js';
import { action, discard, gameWith, hand, inPlay, pending, play, playAll, trash } from './fixtures.js';

const K: CardName[] = ['Vassal', 'Militia', 'Moat', 'Throne Room', 'Thief', 'Spy', 'Library', 'Sentry', 'Bandit', 'Feast'];

describe('card interactions', () => {
  it('Vassal plays a discarded Militia: Moat is still offered, and no Action is used', () => {
    let s = play(gameWith({ kingdom: K, hands: [['Vassal'], ['Moat', 'Copper', 'Copper', 'Estate', 'Estate']], decks: [['Militia']] }), 0, action('Vassal'));
    s = play(s, 0, { type: 'vassal_play', choice: true });
    expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 1 });
    s = play(s, 1, { type: 'reveal_moat', choice: false });
    s = playAll(s, [[1, { type: 'discard_for_militia', card: 'Estate' }], [1, { type: 'discard_for_militia', card: 'Estate' }]]);
    expect(s.coins).to.equal(4);
    expect(s.actions).to.equal(0);
    expect(inPlay(s, 0)).to.deep.equal(['Vassal', 'Militia']);
    expect(hand(s, 1)).to.deep.equal(['Copper', 'Copper', 'Moat']);
  });

  it('Vassal plays a discarded Throne Room, which doubles an Action from hand', () => {
    let s = play(gameWith({ kingdom: K, hands: [['Vassal', 'Moat']], decks: [['Throne Room', 'Gold', 'Gold', 'Gold', 'Gold']] }), 0, action('Vassal'));
    s = playAll(s, [[0, { type: 'vassal_play', choice: true }], [0, { type: 'select_action_for_throne', card: 'Moat' }]]);
    expect(hand(s, 0)).to.deep.equal(['Gold', 'Gold', 'Gold', 'Gold']);
    expect(inPlay(s, 0)).to.deep.equal(['Vassal', 'Throne Room', 'Moat']);
  });

  it('Throne Room on Thief: two rounds of attacker decisions against every victim', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Thief'], []], decks: [[], ['Gold', 'Silver', 'Silver', 'Copper']] }), [[0, action('Throne Room')], [0, { type: 'select_action_for_throne', card: 'Thief' }]]);
    expect(pending(s)).to.deep.include({ k: 'thief_trash', p: 0, t: 1 });
    s = playAll(s, [[0, { type: 'thief_trash', card: 'Gold' }], [0, { type: 'thief_gain', choice: true }]]);
    expect(pending(s)).to.deep.include({ k: 'thief_trash', p: 0, t: 1 });
    s = playAll(s, [[0, { type: 'thief_trash', card: 'Silver' }], [0, { type: 'thief_gain', choice: false }]]);
    expect(pending(s)).to.equal(null);
    expect(discard(s, 0)).to.deep.equal(['Gold']);
    expect(trash(s)).to.deep.equal(['Silver']);
    expect(discard(s, 1)).to.deep.equal(['Copper', 'Silver']);
  });

  it('Throne Room on Spy: +2 Cards +2 Actions and two rounds of reveals', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Spy'], []], decks: [['Copper', 'Estate', 'Silver', 'Duchy'], ['Gold', 'Curse']] }), [[0, action('Throne Room')], [0, { type: 'select_action_for_throne', card: 'Spy' }]]);
    s = playAll(s, [[0, { type: 'spy_discard', card: 'Estate' }], [0, { type: 'spy_discard', card: 'Gold' }]]);
    // The replay draws Silver, then reveals Duchy and Curse.
    expect(pending(s)).to.deep.include({ k: 'spy_decision', t: 0, c: 4 });
    s = playAll(s, [[0, { type: 'spy_keep', card: 'Duchy' }], [0, { type: 'spy_keep', card: 'Curse' }]]);
    expect(hand(s, 0)).to.deep.equal(['Copper', 'Silver']);
    expect(s.actions).to.equal(2);
    expect(pending(s)).to.equal(null);
  });

  it('Bandit reveals through a reshuffle; Moat holders who discarded Moat to the first Militia are not asked again', () => {
    const s = play(gameWith({ kingdom: K, hands: [['Bandit'], []], decks: [[], ['Gold']], discards: [[], ['Silver']] }), 0, action('Bandit'));
    expect(pending(s)).to.deep.include({ k: 'bandit_trash', p: 1 });
    let t = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Militia'], ['Moat', 'Moat', 'Copper', 'Estate', 'Estate']] }), [[0, action('Throne Room')], [0, { type: 'select_action_for_throne', card: 'Militia' }]]);
    t = playAll(t, [[1, { type: 'reveal_moat', choice: false }], [1, { type: 'discard_for_militia', card: 'Moat' }], [1, { type: 'discard_for_militia', card: 'Moat' }]]);
    expect(pending(t)).to.equal(null);
    expect(hand(t, 1)).to.deep.equal(['Copper', 'Estate', 'Estate']);
  });

  it('Sentry with a single card left looks at just that card', () => {
    const s = play(gameWith({ kingdom: K, hands: [['Sentry']], decks: [['Copper', 'Estate']], discards: [[]] }), 0, action('Sentry'));
    expect(pending(s)).to.deep.include({ k: 'sentry_decision', left: 1, c: 3 });
    expect(pending(play(s, 0, { type: 'sentry_keep', card: 'Estate' }))).to.equal(null);
  });
});
