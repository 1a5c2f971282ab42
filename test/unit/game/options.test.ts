import { expect } from 'chai';
import { legalMoves, MOVE_TYPES, type Move } from '../../../actors/game/engine/index.js';
import {
  applyCommand, describePendingEffect, formatCommand, gameOverInfo, optionsFor, parseCommand, parseMoveText, splitCommands, validMoves, waitingFor,
} from '../../../actors/game/options/index.js';
import { PROVINCE } from '../../../actors/game/engine/cards.js';
import { action, gameWith, hand, pending, play } from './fixtures.js';

describe('options layer (actors/game/options)', () => {
  it('numbers every option 1..N in the engine\'s legal-move order, with commands and descriptions', () => {
    const s = gameWith({ hands: [['Village', 'Smithy', 'Copper', 'Silver', 'Estate']] });
    const options = optionsFor(s, 0);
    expect(options.map((o) => o.index)).to.deep.equal(options.map((_, i) => i + 1));
    expect(options.map((o) => o.move)).to.deep.equal(legalMoves(s, 0));
    expect(options.map((o) => o.command)).to.deep.equal([
      'play_action Smithy', 'play_action Village', 'play_all_treasures', 'play_treasure Copper', 'play_treasure Silver',
      'buy Copper', 'buy Curse', 'end_phase', 'end_turn',
    ]);
    for (const o of options) expect(o.description).to.be.a('string').and.not.equal('');
    expect(optionsFor(s, 0)).to.deep.equal(options);
    expect(optionsFor(s, 1)).to.deep.equal([]);
    expect(validMoves(s, 0)).to.deep.equal(options.map((o) => o.command));
  });

  it('"N" and "select N" choose option N', () => {
    const s = play(gameWith({ hands: [['Cellar', 'Copper', 'Estate']] }), 0, action('Cellar'));
    const options = optionsFor(s, 0);
    for (const o of options) {
      expect(parseCommand(s, 0, String(o.index))).to.deep.equal({ ok: true, move: o.move });
      expect(parseCommand(s, 0, `select ${o.index}`)).to.deep.equal({ ok: true, move: o.move });
      expect(parseCommand(s, 0, `  SELECT ${o.index} `)).to.deep.equal({ ok: true, move: o.move });
    }
    const r = applyCommand(s, 0, '2');
    expect(r.ok && hand(r.state, 0)).to.deep.equal(['Copper']);
  });

  it('formats and parses every move shape both ways', () => {
    const samples: Move[] = [
      { type: 'play_action', card: 'Throne Room' },
      { type: 'play_all_treasures' },
      { type: 'buy', card: 'Council Room' },
      { type: 'end_turn' },
      { type: 'discard_for_cellar', card: null },
      { type: 'discard_for_cellar', card: 'Copper' },
      { type: 'reveal_moat', choice: true },
      { type: 'chancellor_decision', choice: false },
      { type: 'library_keep', card: 'Village' },
      { type: 'select_action_for_throne', card: null },
    ];
    for (const move of samples) expect(parseMoveText(formatCommand(move))).to.deep.equal({ ok: true, move });
    expect(formatCommand({ type: 'trash_cards', card: null })).to.equal('trash_cards');
    expect(formatCommand({ type: 'vassal_play', choice: true })).to.equal('vassal_play yes');
    expect(MOVE_TYPES.length).to.be.greaterThan(30);
  });

  it('accepts loose spellings and a few aliases', () => {
    expect(parseMoveText('buy throne room')).to.deep.equal({ ok: true, move: { type: 'buy', card: 'Throne Room' } });
    expect(parseMoveText('BUY ThroneRoom')).to.deep.equal({ ok: true, move: { type: 'buy', card: 'Throne Room' } });
    expect(parseMoveText('play Smithy')).to.deep.equal({ ok: true, move: { type: 'play_action', card: 'Smithy' } });
    expect(parseMoveText('play Gold')).to.deep.equal({ ok: true, move: { type: 'play_treasure', card: 'Gold' } });
    expect(parseMoveText('play all')).to.deep.equal({ ok: true, move: { type: 'play_all_treasures' } });
    expect(parseMoveText('reveal_moat y')).to.deep.equal({ ok: true, move: { type: 'reveal_moat', choice: true } });
    expect(parseMoveText('select_action_for_throne skip')).to.deep.equal({ ok: true, move: { type: 'select_action_for_throne', card: null } });
  });

  it('reports bad commands with a typed error', () => {
    const s = gameWith();
    for (const [text, code] of [['', 'parse_error'], ['fly away', 'unknown_command'], ['buy Goons', 'unknown_card'], ['buy', 'missing_argument'], ['reveal_moat maybe', 'parse_error'], ['1, 2', 'chained_input']] as const) {
      const r = parseCommand(s, 0, text);
      expect(r.ok, text).to.equal(false);
      if (!r.ok) expect(r.error.code, text).to.equal(code);
    }
    const notMine = parseCommand(s, 1, '1');
    expect(!notMine.ok && notMine.error.code).to.equal('no_options');
  });

  it('splits chained input, continuing card lists of the previous command', () => {
    expect(splitCommands('1, 2, 3')).to.deep.equal(['1', '2', '3']);
    expect(splitCommands('discard_for_cellar Copper,Copper,Estate')).to.deep.equal(['discard_for_cellar Copper', 'discard_for_cellar Copper', 'discard_for_cellar Estate']);
    expect(splitCommands('play_action Village; play_action Smithy, 2')).to.deep.equal(['play_action Village', 'play_action Smithy', '2']);
  });

  it('chains are all-or-nothing: a failing step returns the error and the original state', () => {
    const s = gameWith({ hands: [['Village', 'Smithy', 'Copper', 'Copper', 'Copper']], decks: [['Gold', 'Gold', 'Gold', 'Gold']] });
    const ok = applyCommand(s, 0, 'play_action Village, play_action Smithy, play_all_treasures, buy Province');
    expect(ok.ok).to.equal(true);
    if (ok.ok) {
      expect(ok.moves).to.have.length(4);
      expect(ok.state.players[0].discard).to.include(PROVINCE);
      expect(ok.events.some((e) => e.type === 'buy')).to.equal(true);
    }
    const before = JSON.stringify(s);
    const bad = applyCommand(s, 0, 'play_action Village, play_action Smithy, buy Colony');
    expect(bad.ok).to.equal(false);
    if (!bad.ok) {
      expect(bad.state).to.equal(s);
      expect(bad.error.step).to.equal(3);
      expect(bad.error.code).to.equal('unknown_card');
    }
    const illegal = applyCommand(s, 0, '1, 99');
    expect(!illegal.ok && illegal.error.code).to.equal('invalid_selection');
    expect(JSON.stringify(s)).to.equal(before);
  });

  it('the spec-style card list is the whole answer; one card per command, then the bare command, still works', () => {
    const s = play(gameWith({ hands: [['Cellar', 'Copper', 'Copper', 'Estate', 'Silver']], decks: [['Gold', 'Gold', 'Gold']] }), 0, action('Cellar'));
    const r = applyCommand(s, 0, 'discard_for_cellar Copper,Copper,Estate');
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(hand(r.state, 0)).to.deep.equal(['Silver', 'Gold', 'Gold', 'Gold']);
    expect(pending(r.state)).to.equal(null);
    const oneByOne = applyCommand(s, 0, 'discard_for_cellar Copper; discard_for_cellar Copper; discard_for_cellar Estate');
    expect(oneByOne.ok && hand(oneByOne.state, 0)).to.deep.equal(['Silver']);
    const done = oneByOne.ok ? applyCommand(oneByOne.state, 0, 'discard_for_cellar') : oneByOne;
    expect(done.ok && hand(done.state, 0)).to.deep.equal(['Silver', 'Gold', 'Gold', 'Gold']);
  });

  it('describes a pending effect in the spec\'s shape; multi-step cards carry their step', () => {
    let s = play(gameWith({ hands: [['Remodel', 'Estate', 'Copper']] }), 0, action('Remodel'));
    const step1 = describePendingEffect(s, 0)!;
    expect(step1).to.deep.include({ card: 'Remodel', effect: 'trash_for_remodel', step: 1, player: 0, message: 'Remodel - Step 1: Choose card to trash' });
    expect(step1.options[0]).to.deep.equal({ index: 1, description: 'Trash: Copper ($0) → Can gain up to $2', command: 'trash_for_remodel Copper' });
    expect(step1.options[1]).to.deep.equal({ index: 2, description: 'Trash: Estate ($2) → Can gain up to $4', command: 'trash_for_remodel Estate' });
    s = play(s, 0, { type: 'trash_for_remodel', card: 'Estate' });
    const step2 = describePendingEffect(s, 0)!;
    expect(step2).to.deep.include({ card: 'Remodel', effect: 'gain_card', step: 2, message: 'Remodel - Step 2: Choose card to gain (up to $4)' });
    expect(step2.options.find((o) => o.command === 'gain_card Smithy')!.description).to.equal('Gain: Smithy ($4)');
    // The opponent sees who must decide, without options.
    const other = describePendingEffect(s, 1)!;
    expect(other.options).to.deep.equal([]);
    expect(other.message).to.match(/Waiting for Player 1/);
    expect(describePendingEffect(play(s, 0, { type: 'gain_card', card: 'Smithy' }), 0)).to.equal(null);
  });

  it('keeps private cards private in the pending effect (Library draw, Sentry look)', () => {
    const s = play(gameWith({ kingdom: ['Library', 'Sentry', 'Cellar', 'Chapel', 'Moat', 'Village', 'Smithy', 'Market', 'Mine', 'Remodel'], hands: [['Library']], decks: [['Village', 'Copper']] }), 0, action('Library'));
    expect(describePendingEffect(s, 0)!.cards).to.deep.equal(['Village']);
    expect(describePendingEffect(s, 1)!.cards).to.deep.equal([]);
    expect(describePendingEffect(s, null)!.cards).to.deep.equal([]);
    expect(describePendingEffect(s, 0)!.options.map((o) => o.command)).to.deep.equal(['library_set_aside Village', 'library_keep Village']);
  });

  it('reports game over with the result and a summary', () => {
    const s = gameWith({ hands: [['Gold', 'Gold', 'Silver', 'Copper', 'Copper']] });
    expect(gameOverInfo(s)).to.deep.equal({ gameOver: false, result: null, summary: null });
    expect(waitingFor(s)).to.equal('Player 1 to play (action phase)');
    s.supply[PROVINCE] = 1;
    const r = applyCommand(s, 0, 'play_all_treasures, buy Province, end_turn');
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    const info = gameOverInfo(r.state);
    expect(info.gameOver).to.equal(true);
    expect(info.result!.winners).to.deep.equal([0]);
    expect(info.summary).to.match(/^Player 1 wins with \d+ VP$/);
    expect(waitingFor(r.state)).to.equal('The game is over');
    expect(optionsFor(r.state, 0)).to.deep.equal([]);
    const after = parseCommand(r.state, 0, '1');
    expect(!after.ok && after.error.code).to.equal('no_options');
  });

  it('pending decisions of other players show up as options for them only', () => {
    const s = play(gameWith({ hands: [['Militia'], ['Copper', 'Copper', 'Estate', 'Estate', 'Silver']] }), 0, action('Militia'));
    expect(pending(s)!.p).to.equal(1);
    expect(optionsFor(s, 0)).to.deep.equal([]);
    expect(optionsFor(s, 1).map((o) => o.command)).to.deep.equal(['discard_for_militia Copper', 'discard_for_militia Silver', 'discard_for_militia Estate']);
    const r = applyCommand(s, 1, 'discard_for_militia Estate, discard_for_militia Estate');
    expect(r.ok && hand(r.state, 1)).to.deep.equal(['Copper', 'Copper', 'Silver']);
  });
});
