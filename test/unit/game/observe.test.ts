import { expect } from 'chai';
import { observe } from '../../../actors/game/engine/index.js';
import { action, gameWith, play } from './fixtures.js';

describe('observations (engine/observe.ts)', () => {
  it('shows the viewer their own hand only, decks as counts, supply as a plain object', () => {
    const s = gameWith({ players: 3 });
    const o = observe(s, 1);
    expect(o.players[1].hand).to.be.an('array').with.length(5);
    expect(o.players[0]).to.not.have.property('hand');
    expect(o.players[2]).to.not.have.property('hand');
    for (const p of o.players) {
      expect(p).to.not.have.property('deck');
      expect(p.deckCount).to.equal(5);
    }
    expect(Object.getPrototypeOf(o.supply)).to.equal(Object.prototype);
    expect(o.supply.Province).to.equal(12);
    expect(JSON.parse(JSON.stringify(o))).to.deep.equal(o);
  });

  it('spectators see no hands and no private scores', () => {
    const o = observe(gameWith(), null);
    for (const p of o.players) {
      expect(p).to.not.have.property('hand');
      expect(p).to.not.have.property('victoryPoints');
    }
  });

  it('full detail adds the trash and the viewer\'s owned cards, never deck order', () => {
    const s = gameWith({ hands: [['Chapel', 'Estate']], kingdom: ['Chapel', 'Cellar', 'Moat', 'Village', 'Smithy', 'Market', 'Mine', 'Remodel', 'Workshop', 'Militia'] });
    const t = play(play(s, 0, action('Chapel')), 0, { type: 'trash_cards', card: 'Estate' });
    const o = observe(t, 0, 'full');
    expect(o.trash).to.deep.equal(['Estate']);
    expect(o.players[0].owned).to.be.an('object');
    expect(o.players[1]).to.not.have.property('owned');
    const text = JSON.stringify(observe(t, 1, 'full'));
    expect(text).to.not.include('"deck"');
  });

  it('an opponent sees that a Library decision is pending but not the drawn card', () => {
    const s = play(gameWith({ kingdom: ['Library', 'Cellar', 'Moat', 'Village', 'Smithy', 'Market', 'Mine', 'Remodel', 'Workshop', 'Militia'], hands: [['Library']], decks: [['Village']] }), 0, action('Library'));
    expect(observe(s, 0).pending).to.deep.include({ player: 0, effect: 'library_set_aside', cards: ['Village'] });
    expect(observe(s, 1).pending).to.deep.include({ player: 0, effect: 'library_set_aside', cards: [] });
  });

  it('everyone sees the scores once the game is over', () => {
    let s = gameWith({ hands: [['Gold', 'Gold', 'Silver', 'Copper', 'Copper']] });
    s.supply[5] = 1;
    s = play(play(play(s, 0, { type: 'play_all_treasures' }), 0, { type: 'buy', card: 'Province' }), 0, { type: 'end_turn' });
    const o = observe(s, null);
    expect(o.gameOver).to.equal(true);
    for (const p of o.players) expect(p.victoryPoints).to.be.a('number');
    expect(o.result!.winners).to.deep.equal([0]);
  });
});
