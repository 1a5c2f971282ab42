/** The deck coach's routing and blocking rules, scenario by scenario from the spec (pure code). */
import { expect } from 'chai';
import { archetypesIn, coachingToolFor, daysIn, formatIn, looksLikeDeck, metaToolFor, routeIntent } from '../../../actors/conversation/intent.js';
import { argsFor, gate, offlinePlan, topNFor, type ToolCall } from '../../../actors/conversation/plan.js';
import { initialConversation, type ConversationState } from '../../../actors/conversation/state.js';

const FORMATS = ['Legacy', 'Modern', 'Pauper', 'Pioneer', 'Standard', 'Vintage'];
const DECK = Array.from({ length: 10 }, (_, i) => `${(i % 4) + 1} Card Number ${i}`).join('\n');
const card = { name: 'Lightning Bolt', quantity: 4, section: 'mainboard' as const };
const state = (over: Partial<ConversationState> = {}): ConversationState => ({ ...initialConversation('c1'), created_at: 'now', ...over });
const call = (tool: ToolCall['tool'], args: Record<string, unknown> = {}): ToolCall => ({ tool, args });

describe('deck coach routing (spec: route to meta research / deck coaching)', function () {
  it('routes "the meta", "top decks", "format overview" to meta research', function () {
    for (const message of ["What's the Modern meta?", 'top decks in Pioneer', 'give me a format overview', 'what are the top Modern decks over the last two weeks?']) {
      expect(routeIntent(message, false), message).to.equal('meta_research');
    }
  });
  it('routes "my deck", "my sideboard", deck text and optimisation requests to deck coaching, even when the meta is mentioned', function () {
    for (const message of ['how does my deck do in the meta?', 'fix my sideboard', 'optimize this list', 'coach me']) expect(routeIntent(message, false), message).to.equal('deck_coaching');
    expect(routeIntent('thoughts?', true)).to.equal('deck_coaching');
    expect(looksLikeDeck(DECK)).to.equal(true);
    expect(looksLikeDeck('4 things I like about Modern')).to.equal(false);
  });
  it('leaves other messages unknown', function () {
    expect(routeIntent('hello', false)).to.equal('unknown');
  });
  it('picks the tool a message asks for', function () {
    expect(metaToolFor('show the matchup matrix')).to.equal('get_format_matchup_stats');
    expect(metaToolFor('which archetypes are there?')).to.equal('get_format_archetypes');
    expect(metaToolFor('top decks')).to.equal('get_format_meta_rankings');
    expect(coachingToolFor('what should my sideboard be')).to.equal('optimize_sideboard');
    expect(coachingToolFor('how do I beat Goryo Reanimator?')).to.equal('generate_deck_matchup_strategy');
    expect(coachingToolFor('improve my main deck')).to.equal('optimize_mainboard');
    expect(coachingToolFor('how does my deck do in its matchups?')).to.equal('get_deck_matchup_stats');
  });
  it('reads formats, windows and archetypes named in a message', function () {
    expect(formatIn('top modern decks', FORMATS)).to.equal('Modern');
    expect(daysIn('over the last two weeks')).to.equal(14);
    expect(daysIn('past 30 days')).to.equal(30);
    expect(daysIn('last month')).to.equal(30);
    expect(daysIn('last week')).to.equal(7);
    expect(daysIn('what is good')).to.equal(undefined);
    expect(archetypesIn('vs mono red aggro or Red Aggro', ['Red Aggro', 'Mono Red Aggro'])).to.deep.equal(['Mono Red Aggro', 'Red Aggro']);
  });
});

describe('deck coach blocking dependencies (spec: Blocking Dependency Enforcement)', function () {
  it('blocks all tools without a format, offering the formats', function () {
    const gated = gate(state(), [call('get_enriched_deck'), call('get_format_meta_rankings')], FORMATS);
    expect(gated.calls).to.deep.equal([]);
    expect(gated.block).to.deep.include({ missing: 'format', suggestions: FORMATS });
  });
  it('blocks meta tools without current_days, and never assumes a default', function () {
    expect(gate(state({ format: 'Modern' }), [call('get_format_meta_rankings')], FORMATS).block?.missing).to.equal('current_days');
    expect(gate(state({ format: 'Modern' }), [call('get_format_matchup_stats')], FORMATS).block?.missing).to.equal('current_days');
  });
  it('blocks the optimizers and the strategy without card_details, asking for the deck', function () {
    for (const tool of ['optimize_mainboard', 'optimize_sideboard', 'generate_deck_matchup_strategy'] as const) {
      expect(gate(state({ format: 'Modern', current_days: 30, archetype: 'Boros Energy' }), [call(tool, { opponent_archetype: 'X' })], FORMATS).block?.missing, tool).to.equal('deck');
    }
  });
  it('blocks coaching without an archetype once the deck is known, suggesting the meta leaders first', function () {
    const s = state({ format: 'Modern', current_days: 30, card_details: [card], meta: { format: 'Modern', days: 30, top: [{ name: 'Boros Energy', meta_share: 11 }] } });
    const gated = gate(s, [call('optimize_sideboard')], FORMATS);
    expect(gated.block).to.deep.include({ missing: 'archetype', tool: 'optimize_sideboard' });
    expect(gated.block?.suggestions[0]).to.equal('Boros Energy');
  });
  it('blocks deck coaching without current_days', function () {
    expect(gate(state({ format: 'Modern', card_details: [card], archetype: 'Boros Energy' }), [call('optimize_mainboard')], FORMATS).block?.missing).to.equal('current_days');
  });
  it('fetches matchup_stats before a strategy, and not twice', function () {
    const s = state({ format: 'Modern', current_days: 30, card_details: [card], archetype: 'Boros Energy' });
    expect(gate(s, [call('generate_deck_matchup_strategy', { opponent_archetype: 'Goryo Reanimator' })], FORMATS).calls.map((c) => c.tool)).to.deep.equal([
      'get_deck_matchup_stats',
      'generate_deck_matchup_strategy',
    ]);
    const withStats = { ...s, matchup_stats: { archetype: 'Boros Energy', format: 'Modern', days: 30, rows: [{ opponent_archetype: 'Goryo Reanimator', win_rate: 33.8, match_count: 69 }] } };
    const gated = gate(withStats, [call('generate_deck_matchup_strategy', { opponent_archetype: 'Goryo Reanimator' })], FORMATS);
    expect(gated.calls.map((c) => c.tool)).to.deep.equal(['generate_deck_matchup_strategy']);
    const built = argsFor(withStats, gated.calls[0]!);
    expect(built).to.have.nested.property('args.matchup_stats.win_rate', 33.8);
  });
  it('lets a deck parsed earlier in the same turn satisfy the optimizers', function () {
    const s = state({ format: 'Modern', current_days: 30, archetype: 'Boros Energy', deck_text: DECK });
    expect(gate(s, [call('get_enriched_deck'), call('optimize_sideboard')], FORMATS).block).to.equal(null);
  });
  it('takes session arguments from the state, never from the proposer, and sizes top_n from the meta', function () {
    const s = state({ format: 'Modern', current_days: 14, card_details: [card], archetype: 'Boros Energy', meta: { format: 'Modern', days: 14, top: [6, 5, 4.5, 4, 3].map((share, i) => ({ name: `A${i}`, meta_share: share })) } });
    const built = argsFor(s, call('optimize_sideboard', { format: 'Legacy', top_n: 20 }));
    expect(built).to.deep.equal({ args: { card_details: [card], archetype: 'Boros Energy', format: 'Modern', days: 14, top_n: 4 } });
    expect(topNFor(state())).to.equal(5);
    expect(argsFor(state({ format: 'Modern', current_days: 14 }), call('get_format_meta_rankings'))).to.deep.equal({ args: { format: 'Modern', current_days: 14, previous_days: 14 } });
  });
  it('plans a strategy against "the top archetype" from the meta, fetching it first when unknown', function () {
    const s = state({ format: 'Modern', current_days: 30, card_details: [card], archetype: 'Boros Energy' });
    const planned = offlinePlan(s, 'how do I beat the top archetype?', 'deck_coaching', false);
    expect(planned.map((c) => c.tool)).to.deep.equal(['get_format_meta_rankings', 'generate_deck_matchup_strategy']);
    const withMeta = { ...s, meta: { format: 'Modern', days: 30, top: [{ name: 'Boros Energy', meta_share: 11 }, { name: 'Goryo Reanimator', meta_share: 9 }] } };
    const [strategy] = offlinePlan(withMeta, 'how do I beat the top archetype?', 'deck_coaching', false);
    expect(argsFor(withMeta, strategy!)).to.have.nested.property('args.opponent_archetype', 'Goryo Reanimator');
  });
});

describe('deck coach follow-ups (spec: interleave workflows)', function () {
  it('continues the current workflow when a follow-up names only what to change', function () {
    expect(routeIntent('show me the matchups', false, 'meta_research')).to.equal('meta_research');
    expect(routeIntent('what about Legacy?', false, 'meta_research')).to.equal('meta_research');
    expect(routeIntent('and over 60 days', false, 'deck_coaching', true)).to.equal('deck_coaching');
    expect(routeIntent('hello', false, 'meta_research')).to.equal('unknown');
  });
});
