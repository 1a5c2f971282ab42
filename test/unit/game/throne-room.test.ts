import { expect } from 'chai';
import { legalMoves, type CardName } from '../../../actors/game/engine/index.js';
import { action, deckTopFirst, discard, gameWith, hand, inPlay, pending, play, playAll, trash } from './fixtures.js';

const K: CardName[] = ['Throne Room', 'Feast', 'Cellar', 'Remodel', 'Mine', 'Workshop', 'Militia', 'Library', 'Moat', 'Village'];
const K2: CardName[] = ['Throne Room', 'Smithy', 'Chapel', 'Sentry', 'Vassal', 'Artisan', 'Witch', 'Moneylender', 'Harbinger', 'Bureaucrat'];
const TR = (card: CardName | null) => ({ type: 'select_action_for_throne' as const, card });

describe('Throne Room (engine/effects/throne-room.ts)', () => {
  it('plays a simple Action twice without using Actions: Village → +2 Cards, +4 Actions', () => {
    let s = play(gameWith({ kingdom: K, hands: [['Throne Room', 'Village']], decks: [['Gold', 'Silver']] }), 0, action('Throne Room'));
    expect(legalMoves(s, 0)).to.deep.equal([TR('Village'), TR(null)]);
    s = play(s, 0, TR('Village'));
    expect(s.actions).to.equal(4);
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold']);
    expect(inPlay(s, 0)).to.deep.equal(['Throne Room', 'Village']);
  });

  it('Smithy twice: +6 Cards', () => {
    const s = playAll(gameWith({ kingdom: K2, hands: [['Throne Room', 'Smithy']], decks: [['Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Gold']] }), [[0, action('Throne Room')], [0, TR('Smithy')]]);
    expect(hand(s, 0)).to.have.length(6);
    expect(deckTopFirst(s, 0)).to.deep.equal(['Gold']);
  });

  it('doubles Actions with choices: Cellar asks twice', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Cellar', 'Estate', 'Duchy']], decks: [['Gold', 'Silver']] }), [[0, action('Throne Room')], [0, TR('Cellar')]]);
    s = playAll(s, [[0, { type: 'discard_for_cellar', card: 'Estate' }], [0, { type: 'discard_for_cellar', card: null }]]);
    expect(pending(s)).to.deep.include({ k: 'discard_for_cellar', n: 0 });
    expect(hand(s, 0)).to.deep.equal(['Gold', 'Duchy']);
    s = playAll(s, [[0, { type: 'discard_for_cellar', card: 'Duchy' }], [0, { type: 'discard_for_cellar', card: null }]]);
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Gold']);
    expect(s.actions).to.equal(2);
  });

  it('doubles two-step cards: Remodel twice', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Remodel', 'Estate', 'Copper']] }), [[0, action('Throne Room')], [0, TR('Remodel')]]);
    s = playAll(s, [[0, { type: 'trash_for_remodel', card: 'Estate' }], [0, { type: 'gain_card', card: 'Silver' }]]);
    // Second Remodel: only Copper is left, so it is trashed without asking; the gain (up to $2) is a choice.
    expect(pending(s)).to.deep.include({ k: 'gain_card', max: 2, step: 2 });
    s = play(s, 0, { type: 'gain_card', card: 'Cellar' });
    expect(pending(s)).to.equal(null);
    expect(trash(s)).to.deep.equal(['Copper', 'Estate']);
    expect(discard(s, 0)).to.deep.equal(['Silver', 'Cellar']);
  });

  it('Mine twice: the first gained Treasure can be mined again', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Mine', 'Copper']] }), [[0, action('Throne Room')], [0, TR('Mine')]]);
    s = playAll(s, [[0, { type: 'trash_for_mine', card: 'Copper' }], [0, { type: 'gain_card', card: 'Silver' }]]);
    expect(pending(s)).to.deep.include({ k: 'trash_for_mine' });
    s = playAll(s, [[0, { type: 'trash_for_mine', card: 'Silver' }], [0, { type: 'gain_card', card: 'Gold' }]]);
    expect(hand(s, 0)).to.deep.equal(['Gold']);
    expect(trash(s)).to.deep.equal(['Copper', 'Silver']);
  });

  it('Workshop twice gains two cards', () => {
    const s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Workshop']] }), [
      [0, action('Throne Room')], [0, TR('Workshop')], [0, { type: 'gain_card', card: 'Silver' }], [0, { type: 'gain_card', card: 'Village' }],
    ]);
    expect(discard(s, 0)).to.deep.equal(['Silver', 'Village']);
    expect(pending(s)).to.equal(null);
  });

  it('Feast twice: trashed once, gains twice', () => {
    const s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Feast']] }), [
      [0, action('Throne Room')], [0, TR('Feast')], [0, { type: 'gain_card', card: 'Library' }], [0, { type: 'gain_card', card: 'Mine' }],
    ]);
    expect(trash(s)).to.deep.equal(['Feast']);
    expect(discard(s, 0)).to.deep.equal(['Library', 'Mine']);
    expect(inPlay(s, 0)).to.deep.equal(['Throne Room']);
  });

  it('Throne Room on Throne Room: two Actions, each played twice', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Throne Room', 'Village', 'Feast']], decks: [['Copper', 'Copper']] }), [[0, action('Throne Room')], [0, TR('Throne Room')]]);
    expect(pending(s)!.k).to.equal('select_action_for_throne');
    s = play(s, 0, TR('Village'));
    expect(s.actions).to.equal(4);
    expect(pending(s)!.k).to.equal('select_action_for_throne');
    s = playAll(s, [[0, TR('Feast')], [0, { type: 'gain_card', card: 'Mine' }], [0, { type: 'gain_card', card: 'Library' }]]);
    expect(discard(s, 0)).to.deep.equal(['Library', 'Mine']);
    expect(trash(s)).to.deep.equal(['Feast']);
    expect(pending(s)).to.equal(null);
  });

  it('Militia twice: +$4 and Moat may be revealed against each play', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Militia'], ['Moat', 'Copper', 'Copper', 'Estate', 'Duchy']] }), [[0, action('Throne Room')], [0, TR('Militia')]]);
    expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 1 });
    s = play(s, 1, { type: 'reveal_moat', choice: true });
    expect(pending(s)).to.deep.include({ k: 'reveal_moat', p: 1 });
    s = play(s, 1, { type: 'reveal_moat', choice: false });
    expect(pending(s)).to.deep.include({ k: 'discard_for_militia', p: 1 });
    s = playAll(s, [[1, { type: 'discard_for_militia', card: 'Estate' }], [1, { type: 'discard_for_militia', card: 'Duchy' }]]);
    expect(s.coins).to.equal(4);
    expect(hand(s, 1)).to.deep.equal(['Copper', 'Copper', 'Moat']);
  });

  it('Library twice, Chapel twice, Sentry twice, Artisan twice all resolve', () => {
    let s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Library']], decks: [['Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Gold']] }), [[0, action('Throne Room')], [0, TR('Library')]]);
    expect(hand(s, 0)).to.have.length(7);
    s = playAll(gameWith({ kingdom: K2, hands: [['Throne Room', 'Chapel', 'Estate', 'Estate', 'Copper', 'Copper', 'Copper']] }), [[0, action('Throne Room')], [0, TR('Chapel')]]);
    for (const c of ['Estate', 'Estate', 'Copper', 'Copper'] as CardName[]) s = play(s, 0, { type: 'trash_cards', card: c });
    expect(pending(s)).to.deep.include({ k: 'trash_cards', n: 0 });
    s = play(s, 0, { type: 'trash_cards', card: 'Copper' });
    expect(pending(s)).to.equal(null);
    expect(trash(s)).to.have.length(5);
    s = playAll(gameWith({ kingdom: K2, hands: [['Throne Room', 'Sentry']], decks: [['Copper', 'Estate', 'Curse', 'Silver', 'Gold', 'Gold']] }), [[0, action('Throne Room')], [0, TR('Sentry')]]);
    s = playAll(s, [[0, { type: 'sentry_trash', card: 'Estate' }], [0, { type: 'sentry_trash', card: 'Curse' }]]);
    expect(pending(s)).to.deep.include({ k: 'sentry_decision', c: 2 });
    // Artisan twice with an otherwise empty hand: each gained card is the only one to put back.
    s = playAll(gameWith({ kingdom: K2, hands: [['Throne Room', 'Artisan']] }), [[0, action('Throne Room')], [0, TR('Artisan')], [0, { type: 'gain_card', card: 'Witch' }]]);
    s = play(s, 0, { type: 'gain_card', card: 'Smithy' });
    expect(pending(s)).to.equal(null);
    expect(deckTopFirst(s, 0).slice(0, 2)).to.deep.equal(['Smithy', 'Witch']);
  });

  it('with no other Action in hand, resolves without a decision; skipping is allowed', () => {
    expect(pending(play(gameWith({ kingdom: K, hands: [['Throne Room', 'Copper']] }), 0, action('Throne Room')))).to.equal(null);
    const s = playAll(gameWith({ kingdom: K, hands: [['Throne Room', 'Village']] }), [[0, action('Throne Room')], [0, TR(null)]]);
    expect(hand(s, 0)).to.deep.equal(['Village']);
    expect(s.actions).to.equal(0);
  });
});
