/** The spec's edge cases (EC-*), each against the engine and the options layer. */
import { expect } from 'chai';
import { legalMoves, type CardName } from '../../../actors/game/engine/index.js';
import { COST, SILVER } from '../../../actors/game/engine/cards.js';
import { applyCommand, limitOptions, optionsFor, parseCommand } from '../../../actors/game/options/index.js';
import { action, deckTopFirst, discard, gameWith, hand, pending, play, playAll } from './fixtures.js';

const K1E: CardName[] = ['Spy', 'Bureaucrat', 'Chancellor', 'Feast', 'Library', 'Throne Room', 'Cellar', 'Chapel', 'Remodel', 'Workshop'];

describe('spec edge cases (EC-*)', () => {
  it('EC-GEN-1 / EC-CELLAR-1: Chapel or Cellar with an empty hand resolve at once (no zero-option decision)', () => {
    const chapel = play(gameWith({ kingdom: K1E, hands: [['Chapel']] }), 0, action('Chapel'));
    expect(pending(chapel)).to.equal(null);
    const cellar = play(gameWith({ kingdom: K1E, hands: [['Cellar']] }), 0, action('Cellar'));
    expect(pending(cellar)).to.equal(null);
    expect(cellar.actions).to.equal(1);
  });

  it('EC-GEN-2 / EC-THRONE-1: Throne Room with one Action offers it plus skip; with none it resolves', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Throne Room', 'Cellar', 'Copper']] }), 0, action('Throne Room'));
    const options = optionsFor(s, 0);
    expect(options.map((o) => o.command)).to.deep.equal(['select_action_for_throne Cellar', 'select_action_for_throne']);
    expect(options[1].description).to.equal("Skip (don't use Throne Room)");
    expect(pending(play(gameWith({ kingdom: K1E, hands: [['Throne Room', 'Copper']] }), 0, action('Throne Room')))).to.equal(null);
  });

  it('EC-GEN-3: many options are all generated; display is limited to 50 with the spec\'s note', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Cellar', 'Copper', 'Silver', 'Gold', 'Estate', 'Duchy']] }), 0, action('Cellar'));
    expect(optionsFor(s, 0)).to.have.length(6);
    const many = Array.from({ length: 60 }, (_, i) => ({ index: i + 1 }));
    const limited = limitOptions(many);
    expect(limited.options).to.have.length(50);
    expect(limited.total).to.equal(60);
    expect(limited.message).to.equal('Showing first 50 of 60 options. Use move command for specific choice.');
    expect(limitOptions(many.slice(0, 50)).message).to.equal(null);
  });

  it('EC-GEN-4: a move for the wrong pending effect is rejected with "Expected X, got Y"', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Cellar', 'Copper', 'Estate']] }), 0, action('Cellar'));
    const r = applyCommand(s, 0, 'trash_cards Copper');
    expect(r.ok).to.equal(false);
    if (r.ok) return;
    expect(r.error.code).to.equal('wrong_move_for_pending');
    expect(r.error.message).to.equal('Expected discard_for_cellar, got trash_cards');
    expect(r.state).to.equal(s);
  });

  it('EC-GEN-5: out-of-range selection names the valid range and changes nothing', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Cellar', 'Copper', 'Silver', 'Gold', 'Estate']] }), 0, action('Cellar'));
    expect(optionsFor(s, 0)).to.have.length(5);
    for (const text of ['select 10', '10', '0', 'select 0']) {
      const r = parseCommand(s, 0, text);
      expect(r.ok).to.equal(false);
      if (!r.ok) expect(r.error.message).to.equal(`Invalid selection: ${text.replace('select ', '')}. Valid range is 1-5.`);
    }
    const before = JSON.stringify(s);
    expect(applyCommand(s, 0, 'select 10').ok).to.equal(false);
    expect(JSON.stringify(s)).to.equal(before);
  });

  it('EC-CHAPEL-1: with a 2-card hand Chapel can trash at most those 2', () => {
    let s = play(gameWith({ kingdom: K1E, hands: [['Chapel', 'Estate', 'Copper']] }), 0, action('Chapel'));
    s = playAll(s, [[0, { type: 'trash_cards', card: 'Estate' }], [0, { type: 'trash_cards', card: 'Copper' }]]);
    expect(pending(s)).to.equal(null);
  });

  it('EC-REMODEL-1: nothing affordable to gain in step 2 skips the gain', () => {
    let s = gameWith({ kingdom: K1E, hands: [['Remodel', 'Curse', 'Estate']] });
    // Trashing a Curse ($0) allows gains up to $2: empty every pile that cheap.
    for (const c of s.piles) if (COST[c] <= 2) s.supply[c] = 0;
    s = play(s, 0, action('Remodel'));
    s = play(s, 0, { type: 'trash_for_remodel', card: 'Curse' });
    expect(pending(s)).to.equal(null);
    expect(s.players[0].discard).to.deep.equal([]);
  });

  it('Remodel with an empty hand resolves (the original hung here)', () => {
    expect(pending(play(gameWith({ kingdom: K1E, hands: [['Remodel']] }), 0, action('Remodel')))).to.equal(null);
  });

  it('EC-MINE-1: Mine without a Treasure resolves (the original hung here)', () => {
    expect(pending(play(gameWith({ hands: [['Mine', 'Estate', 'Estate']] }), 0, action('Mine')))).to.equal(null);
  });

  it('EC-WORKSHOP-1: nothing costing up to $4 left → Workshop resolves; one card left → gained without asking', () => {
    const s = gameWith({ kingdom: K1E, hands: [['Workshop']] });
    for (const c of s.piles) if (COST[c] <= 4) s.supply[c] = 0;
    expect(pending(play(s, 0, action('Workshop')))).to.equal(null);
    s.supply[SILVER] = 1;
    const one = play(s, 0, action('Workshop'));
    expect(pending(one)).to.equal(null);
    expect(discard(one, 0)).to.deep.equal(['Silver']);
  });

  it('EC-LIBRARY-1: Library with 7 cards in hand completes immediately', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Library', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper', 'Copper']], decks: [['Gold']] }), 0, action('Library'));
    expect(pending(s)).to.equal(null);
    expect(hand(s, 0)).to.have.length(7);
    expect(deckTopFirst(s, 0)).to.deep.equal(['Gold']);
  });

  it('EC-LIBRARY-2: Library stops when deck and discard are empty; set-aside cards are not reshuffled', () => {
    let s = play(gameWith({ kingdom: K1E, hands: [['Library']], decks: [['Cellar', 'Copper']], discards: [['Silver']] }), 0, action('Library'));
    s = play(s, 0, { type: 'library_set_aside', card: 'Cellar' });
    expect(pending(s)).to.equal(null);
    expect(hand(s, 0)).to.deep.equal(['Copper', 'Silver']);
    expect(discard(s, 0)).to.deep.equal(['Cellar']);
  });

  it('EC-SPY-1: a player with no cards to reveal is skipped', () => {
    let s = play(gameWith({ kingdom: K1E, hands: [['Spy'], []], decks: [['Copper', 'Estate'], []], discards: [[], []] }), 0, action('Spy'));
    s = play(s, 0, { type: 'spy_keep', card: 'Estate' });
    expect(pending(s)).to.equal(null);
  });

  it('EC-BUREAUCRAT-1: no Victory cards → the hand is revealed, nothing to decide', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Bureaucrat'], ['Copper', 'Copper', 'Silver']] }), 0, action('Bureaucrat'));
    expect(pending(s)).to.equal(null);
    expect(hand(s, 1)).to.deep.equal(['Copper', 'Copper', 'Silver']);
  });

  it('any decision always offers at least one legal move', () => {
    const s = play(gameWith({ kingdom: K1E, hands: [['Feast']] }), 0, action('Feast'));
    expect(legalMoves(s, 0).length).to.be.greaterThan(0);
  });
});
