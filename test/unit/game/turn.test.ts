import { expect } from 'chai';
import { applyMove, createGame, legalMoves, observe } from '../../../actors/game/engine/index.js';
import { PROVINCE, DUCHY, ESTATE, CURSE, GARDENS, COPPER } from '../../../actors/game/engine/cards.js';
import { action, discard, gameWith, hand, inPlay, play, playAll, rejects } from './fixtures.js';

describe('turn structure (engine/turn.ts)', () => {
  it('plays treasures, buys, and cleans up into a fresh hand of 5', () => {
    let s = gameWith({ hands: [['Copper', 'Copper', 'Copper', 'Estate', 'Estate']], decks: [['Silver', 'Silver', 'Silver', 'Silver', 'Silver', 'Gold']] });
    s = play(s, 0, { type: 'play_all_treasures' });
    expect(s.coins).to.equal(3);
    expect(s.phase).to.equal('buy');
    s = play(s, 0, { type: 'buy', card: 'Silver' });
    expect(s.coins).to.equal(0);
    expect(s.buys).to.equal(0);
    s = play(s, 0, { type: 'end_turn' });
    expect(hand(s, 0)).to.deep.equal(['Silver', 'Silver', 'Silver', 'Silver', 'Silver']);
    expect(discard(s, 0)).to.deep.equal(['Copper', 'Copper', 'Copper', 'Silver', 'Estate', 'Estate']);
    expect(s.current).to.equal(1);
    expect(s.turn).to.equal(2);
    expect(s.players[0].turns).to.equal(1);
    expect(s.actions).to.equal(1);
    expect(s.buys).to.equal(1);
  });

  it('rejects treasures after a buy (all treasures before buying)', () => {
    let s = gameWith({ hands: [['Copper', 'Copper', 'Copper', 'Silver', 'Estate']] });
    s = play(s, 0, { type: 'play_treasure', card: 'Copper' });
    s = play(s, 0, { type: 'buy', card: 'Copper' });
    rejects(s, 0, { type: 'play_treasure', card: 'Silver' }, 'treasure_after_buy');
    rejects(s, 0, { type: 'play_all_treasures' }, 'treasure_after_buy');
    expect(legalMoves(s, 0).some((m) => m.type === 'play_treasure' || m.type === 'play_all_treasures')).to.equal(false);
  });

  it('rejects illegal buys with typed errors and leaves the state unchanged', () => {
    const s = play(gameWith({ hands: [['Copper', 'Copper', 'Estate', 'Estate', 'Estate']] }), 0, { type: 'play_all_treasures' });
    rejects(s, 0, { type: 'buy', card: 'Silver' }, 'not_enough_coins');
    rejects(s, 0, { type: 'buy', card: 'Witch' }, 'not_in_supply');
    rejects(s, 0, { type: 'buy', card: 'Nope' as never }, 'unknown_card');
    rejects(s, 1, { type: 'buy', card: 'Copper' }, 'not_your_turn');
    const bought = play(s, 0, { type: 'buy', card: 'Estate' });
    rejects(bought, 0, { type: 'buy', card: 'Copper' }, 'no_buys');
    const empty = structuredClone(s);
    empty.supply[ESTATE] = 0;
    rejects(empty, 0, { type: 'buy', card: 'Estate' }, 'pile_empty');
  });

  it('checks Actions, phase and hand for play_action', () => {
    const s = gameWith({ hands: [['Smithy', 'Village', 'Copper', 'Copper', 'Copper']] });
    rejects(s, 0, action('Mine'), 'card_not_in_hand');
    rejects(s, 0, action('Copper'), 'not_an_action');
    rejects(s, 0, { type: 'play_action', card: 'Smithy ' as never }, 'unknown_card');
    const bought = play(s, 0, { type: 'play_all_treasures' });
    rejects(bought, 0, action('Smithy'), 'wrong_phase');
    const smithied = play(s, 0, action('Smithy'));
    expect(smithied.actions).to.equal(0);
    rejects(smithied, 0, action('Village'), 'no_actions');
    rejects(s, 0, { type: 'fly' } as never, 'invalid_move');
    rejects(s, 0, { type: 'discard_for_cellar', card: null }, 'invalid_move');
  });

  it('end_phase moves to Buy; end_turn works from either phase', () => {
    const s = gameWith();
    const buy = play(s, 0, { type: 'end_phase' });
    expect(buy.phase).to.equal('buy');
    rejects(buy, 0, { type: 'end_phase' }, 'wrong_phase');
    expect(play(s, 0, { type: 'end_turn' }).current).to.equal(1);
    expect(play(buy, 0, { type: 'end_turn' }).current).to.equal(1);
  });

  it('Merchant: +$1 on the first Silver only, once per Merchant played before it', () => {
    let s = gameWith({ kingdom: 'First Game', hands: [['Merchant', 'Merchant', 'Silver', 'Silver', 'Copper']], decks: [['Village', 'Estate', 'Estate']] });
    s = playAll(s, [[0, action('Merchant')], [0, action('Merchant')]]);
    s = play(s, 0, { type: 'play_treasure', card: 'Silver' });
    expect(s.coins).to.equal(4);
    s = play(s, 0, { type: 'play_treasure', card: 'Silver' });
    expect(s.coins).to.equal(6);
    const all = play(playAll(gameWith({ kingdom: 'First Game', hands: [['Merchant', 'Silver', 'Silver', 'Copper', 'Copper']], decks: [['Estate']] }), [[0, action('Merchant')]]), 0, { type: 'play_all_treasures' });
    expect(all.coins).to.equal(7);
    const none = play(gameWith({ kingdom: 'First Game', hands: [['Merchant', 'Copper', 'Copper', 'Copper', 'Copper']], decks: [['Estate']] }), 0, action('Merchant'));
    expect(play(none, 0, { type: 'play_all_treasures' }).coins).to.equal(4);
  });

  it('ends the game at the end of the turn in which the last Province is bought', () => {
    let s = gameWith({ hands: [['Gold', 'Gold', 'Silver', 'Copper', 'Copper']] });
    s.supply[PROVINCE] = 1;
    s = play(s, 0, { type: 'play_all_treasures' });
    s = play(s, 0, { type: 'buy', card: 'Province' });
    expect(s.phase).to.equal('buy');
    expect(s.result).to.equal(null);
    s = play(s, 0, { type: 'end_turn' });
    expect(s.phase).to.equal('over');
    expect(s.result!.reason).to.equal('provinces');
    rejects(s, 1, { type: 'end_turn' }, 'game_over');
    expect(legalMoves(s, 0)).to.deep.equal([]);
    expect(legalMoves(s, 1)).to.deep.equal([]);
  });

  it('ends the game on three empty Supply piles (any piles, Curses included)', () => {
    let s = gameWith();
    s.supply[CURSE] = 0;
    s.supply[s.kingdom[0]] = 0;
    s.supply[ESTATE] = 1;
    s = play(s, 0, { type: 'play_all_treasures' });
    s = play(s, 0, { type: 'buy', card: 'Estate' });
    s = play(s, 0, { type: 'end_turn' });
    expect(s.result!.reason).to.equal('piles');
  });

  it('two empty piles do not end the game', () => {
    let s = gameWith();
    s.supply[CURSE] = 0;
    s.supply[ESTATE] = 0;
    s = play(s, 0, { type: 'end_turn' });
    expect(s.phase).to.equal('action');
  });

  it('tie-break: the tied player with fewer turns wins; equal turns share the win', () => {
    // Player 0 goes first and ends the game on their turn: they have taken one more turn than Player 1.
    let s = gameWith({ hands: [['Gold', 'Gold', 'Silver', 'Copper', 'Copper']] });
    s.supply[PROVINCE] = 1;
    for (const pl of s.players) { pl.deck = []; pl.discard = []; pl.hand = pl.hand.filter((c) => c !== ESTATE); }
    s.players[0].hand = [2, 2, 1, 0, 0];
    s.players[1].discard = [PROVINCE];
    s = playAll(s, [[0, { type: 'end_turn' }], [1, { type: 'end_turn' }]]);
    s = playAll(s, [[0, { type: 'play_all_treasures' }], [0, { type: 'buy', card: 'Province' }], [0, { type: 'end_turn' }]]);
    expect(s.result!.scores).to.deep.equal([6, 6]);
    expect(s.result!.turns).to.deep.equal([2, 1]);
    expect(s.result!.winners).to.deep.equal([1]);

    let t = gameWith({ hands: [['Gold', 'Gold', 'Silver', 'Copper', 'Copper']] });
    t.supply[PROVINCE] = 1;
    for (const pl of t.players) { pl.deck = []; pl.discard = []; pl.hand = []; }
    t.players[1].hand = [2, 2, 1, 0, 0];
    t.players[0].discard = [PROVINCE];
    t = playAll(t, [[0, { type: 'end_turn' }]]);
    t = playAll(t, [[1, { type: 'play_all_treasures' }], [1, { type: 'buy', card: 'Province' }], [1, { type: 'end_turn' }]]);
    expect(t.result!.turns).to.deep.equal([1, 1]);
    expect(t.result!.winners).to.deep.equal([0, 1]);
  });

  it('scores Gardens at 1 VP per 10 cards owned, rounded down, and Curses at -1', () => {
    let s = gameWith({ kingdom: ['Gardens', 'Cellar', 'Chapel', 'Moat', 'Village', 'Smithy', 'Witch', 'Mine', 'Market', 'Library'] });
    const pl = s.players[0];
    pl.deck = Array(25).fill(COPPER);
    pl.hand = [GARDENS, GARDENS, DUCHY, CURSE];
    pl.discard = [];
    s.supply[PROVINCE] = 0;
    s = play(s, 0, { type: 'end_turn' });
    // 29 cards: Gardens 2 × 2 = 4, Duchy 3, Curse -1.
    expect(s.result!.scores[0]).to.equal(6);
    expect(observe(s, 1).players[0].victoryPoints).to.equal(6);
  });

  it('a turn limit ends the game once every player has taken that many turns', () => {
    const r = createGame({ players: 2, seed: 5, turnLimit: 1, firstPlayer: 1 });
    if (!r.ok) throw new Error();
    let s = play(r.state, 1, { type: 'end_turn' });
    expect(s.phase).to.equal('action');
    s = play(s, 0, { type: 'end_turn' });
    expect(s.result!.reason).to.equal('turn_limit');
  });

  it('reports public events, who moves next and game over with every applied move', () => {
    const s = gameWith({ hands: [['Militia', 'Copper'], ['Copper', 'Copper', 'Estate', 'Estate', 'Silver']], decks: [['Gold']] });
    const r = applyMove(s, 0, action('Militia'));
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.events).to.deep.equal([{ type: 'play', player: 0, card: 'Militia' }]);
    expect([r.toMove, r.gameOver]).to.deep.equal([1, false]);
    const d = applyMove(r.state, 1, { type: 'discard_for_militia', card: 'Estate' });
    expect(d.ok && d.events).to.deep.equal([{ type: 'discard', player: 1, card: 'Estate' }]);
    const t = applyMove(play(s, 0, { type: 'play_all_treasures' }), 0, { type: 'end_turn' });
    // Cleanup: Gold is drawn, the deck runs out, Militia and Copper are shuffled and drawn (draws are counts only).
    expect(t.ok && t.events).to.deep.equal([{ type: 'shuffle', player: 0 }, { type: 'draw', player: 0, count: 3 }, { type: 'turn_start', player: 1, turn: 2 }]);
  });

  it('never mutates the state passed to applyMove', () => {
    const s = gameWith({ hands: [['Smithy', 'Copper', 'Copper', 'Copper', 'Estate']] });
    const before = JSON.stringify(s);
    const r = applyMove(s, 0, action('Smithy'));
    expect(r.ok).to.equal(true);
    expect(JSON.stringify(s)).to.equal(before);
    expect(inPlay(r.ok ? r.state : s, 0)).to.deep.equal(['Smithy']);
  });
});
