/**
 * Every Action card played start to finish through the presentation layer only (commands and option
 * numbers, as an MCP agent or CLI user would), with Moat holders and 3 players so attacks ask around.
 */
import { expect } from 'chai';
import { cardInfo, KINGDOM_CARD_NAMES, observe, type CardName } from '../../../actors/game/engine/index.js';
import { applyCommand, describeEvent, describePendingEffect, optionsFor, responseFields } from '../../../actors/game/options/index.js';
import { gameWith, totalCards } from './fixtures.js';

const actionCards = KINGDOM_CARD_NAMES.filter((c) => cardInfo(c).types.includes('Action'));

function kingdomWith(card: CardName): CardName[] {
  const rest = (['Moat', 'Village', 'Smithy', 'Cellar', 'Chapel', 'Workshop', 'Remodel', 'Mine', 'Market', 'Laboratory', 'Festival'] as CardName[]).filter((c) => c !== card);
  return [card, ...rest].slice(0, 10);
}

describe('every Action card through numbered options (actors/game/options)', () => {
  for (const card of actionCards) {
    for (const pick of ['first', 'last'] as const) {
      it(`${card}: resolves by always choosing the ${pick} option`, () => {
        let s = gameWith({
          players: 3,
          kingdom: kingdomWith(card),
          hands: [[card, 'Throne Room' === card ? 'Village' : 'Copper', 'Silver', 'Estate', 'Copper'], ['Moat', 'Copper', 'Estate', 'Duchy', 'Silver'], ['Copper', 'Copper', 'Gold', 'Estate', 'Estate']],
          decks: [['Village', 'Gold', 'Estate', 'Silver', 'Copper', 'Smithy', 'Copper'], ['Silver', 'Gold', 'Copper'], ['Gold', 'Silver', 'Estate']],
          discards: [['Gold', 'Estate'], [], []],
        });
        const total = totalCards(s);
        const played = applyCommand(s, 0, `play_action ${card}`);
        expect(played.ok, played.ok ? '' : played.error.message).to.equal(true);
        if (!played.ok) return;
        s = played.state;
        for (const e of played.events) expect(describeEvent(e)).to.be.a('string').and.not.equal('');
        let guard = 0;
        while (s.stack.length > 0) {
          const p = s.stack[s.stack.length - 1].p;
          const pending = describePendingEffect(s, p)!;
          expect(pending.options.length, `${card}: ${pending.message}`).to.be.greaterThan(0);
          expect(pending.message).to.be.a('string').and.not.equal('');
          for (let viewer = 0; viewer < 3; viewer++) if (viewer !== p) expect(optionsFor(s, viewer)).to.deep.equal([]);
          const n = pick === 'first' ? 1 : pending.options.length;
          const r = applyCommand(s, p, `select ${n}`);
          expect(r.ok, r.ok ? '' : r.error.message).to.equal(true);
          if (!r.ok) return;
          s = r.state;
          expect(++guard).to.be.lessThan(60);
        }
        expect(totalCards(s)).to.equal(total);
        const fields = responseFields(s, 0);
        expect(fields.pendingEffect).to.equal(null);
        expect(fields.validMoves).to.include('end_turn');
        expect(observe(s, 0).queue).to.deep.equal([]);
      });
    }
  }

  it('observations list the whole queue front first (3-player Militia)', () => {
    const s = applyCommand(gameWith({ players: 3, hands: [['Militia'], ['Copper', 'Copper', 'Estate', 'Estate', 'Silver'], ['Copper', 'Copper', 'Estate', 'Duchy', 'Silver']] }), 0, 'play_action Militia');
    expect(s.ok).to.equal(true);
    if (!s.ok) return;
    expect(observe(s.state, 2).queue).to.deep.equal([{ player: 1, step: 'discard_for_militia' }, { player: 2, step: 'militia' }]);
    const fields = responseFields(s.state, 1);
    expect(fields.pendingEffect!.effect).to.equal('discard_for_militia');
    expect(fields.status).to.equal('Player 2 to answer discard_for_militia');
    expect(responseFields(s.state, 2).validMoves).to.deep.equal([]);
  });
});
