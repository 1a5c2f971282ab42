/**
 * The coaching tools with a language model: on the real dataset, a scripted chat model receives the
 * facts the data layer computed (and nothing it has to invent) and its text becomes the answer's
 * prose; a model that fails leaves the answer intact, with the template text and a note.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { pino } from 'pino';
import type { ModelLlmConfig } from '../../actors/llm/config.js';
import { modelNarrator } from '../../actors/llm/model-narrator.js';
import { CardCatalogue } from '../../actors/meta/card-catalogue.js';
import { enrichedDeck } from '../../actors/meta/enriched-deck.js';
import { optimizeMainboard } from '../../actors/meta/mainboard-optimizer.js';
import { matchupStrategy } from '../../actors/meta/matchup-strategy.js';
import { MetaQueries } from '../../actors/meta/meta-queries.js';
import { optimizeSideboard } from '../../actors/meta/sideboard-optimizer.js';
import { seededMongo, type SeededMongo } from '../support/seeded-dbpath.js';

class ScriptedChatModel extends BaseChatModel {
  readonly prompts: string[] = [];
  constructor(private readonly answer: (prompt: string) => string) {
    super({});
  }
  _llmType(): string {
    return 'scripted';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const prompt = messages.map((m) => String(m.content)).join('\n');
    this.prompts.push(prompt);
    const text = this.answer(prompt);
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}

const config: ModelLlmConfig = { provider: 'openai-compatible', model: 'scripted-1', baseUrl: 'http://127.0.0.1:9/v1', apiKey: undefined, temperature: undefined, timeoutMs: 5000 };

const DECK = `4 Guide of Souls\n4 Ocelot Pride\n4 Ragavan, Nimble Pilferer\n4 Galvanic Discharge\n4 Lightning Bolt\n3 Phlage, Titan of Fire's Fury\n2 Tribal Flames\n4 Arid Mesa\n4 Sacred Foundry\n4 Inspiring Vantage\n5 Mountain\n4 Plains\n4 Static Prison\n4 Seasoned Pyromancer\n6 Flooded Strand\n\nSideboard\n3 Wear // Tear\n3 Blood Moon\n3 Surgical Extraction\n3 Celestial Purge\n3 Wrath of the Skies\n`;

describe('meta coaching tools with a language model (scripted)', function () {
  this.timeout(60_000);
  let mongo: SeededMongo;
  let connection: mongoose.Connection;
  let catalogue: CardCatalogue;
  let queries: MetaQueries;
  let cardDetails: Awaited<ReturnType<typeof enrichedDeck>>['card_details'];
  const logger = pino({ level: 'silent' });

  before(async function () {
    mongo = await seededMongo();
    connection = await mongoose.createConnection(mongo.uri, { dbName: mongo.dbName }).asPromise();
    catalogue = new CardCatalogue(connection);
    queries = new MetaQueries(connection);
    cardDetails = (await enrichedDeck(catalogue, DECK)).card_details;
  });

  after(async function () {
    await connection?.close();
    await mongo?.stop();
  });

  it('sends the computed facts to the model and answers with its text', async function () {
    const model = new ScriptedChatModel(() => 'Keep Ragavan, board in the graveyard hate.');
    const narrator = modelNarrator(model, config);
    const answer = await matchupStrategy({ queries, catalogue, narrator, logger }, { card_details: cardDetails, archetype: 'Boros Energy', opponent_archetype: 'Goryo Reanimator', days: 30 });
    expect(answer.advice).to.equal('Keep Ragavan, board in the graveyard hate.');
    expect(answer.narrator).to.deep.equal({ provider: 'openai-compatible', model: 'scripted-1', offline: false });
    expect(model.prompts).to.have.length(1);
    // The facts the model explains are the ones in the answer: the opponent's staples from the data.
    for (const card of answer.opponent_profile.key_cards.slice(0, 5)) expect(model.prompts[0]).to.include(card.name);
    expect(model.prompts[0]).to.include('"source": "data"');
  });

  it('optimize_mainboard and optimize_sideboard hand the model only cards from their own recommendations', async function () {
    const model = new ScriptedChatModel((prompt) => (prompt.includes('sideboard') ? 'Sideboard prose.' : 'Main deck prose.'));
    const deps = { queries, catalogue, narrator: modelNarrator(model, config), logger };
    const main = await optimizeMainboard(deps, { card_details: cardDetails, archetype: 'Boros Energy', format: 'Modern', top_n: 3, days: 30 });
    expect(main.explanation).to.equal('Main deck prose.');
    expect(main.recommendations.length).to.be.greaterThan(0);
    for (const r of main.recommendations) expect(model.prompts[0]).to.include(r.add);
    const side = await optimizeSideboard(deps, { card_details: cardDetails, archetype: 'Boros Energy', format: 'Modern', top_n: 3, days: 30 });
    expect(side.explanation).to.equal('Sideboard prose.');
    expect(side.final_sideboard.reduce((n, c) => n + c.quantity, 0)).to.equal(15);
    for (const c of side.final_sideboard) expect(model.prompts[1]).to.include(c.name);
  });

  it('a failing model does not fail the tool: the template text comes with a note', async function () {
    const model = new ScriptedChatModel(() => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    });
    const answer = await matchupStrategy(
      { queries, catalogue, narrator: modelNarrator(model, config), logger },
      { card_details: cardDetails, archetype: 'Boros Energy', opponent_archetype: 'Goryo Reanimator', format: 'modern', days: 30 },
    );
    expect(answer.advice).to.match(/^\*\*Boros Energy vs Goryo Reanimator\*\*/);
    expect(answer.advice).to.match(/could not write this explanation/);
    expect(answer.narrator).to.deep.equal({ provider: 'openai-compatible', model: 'scripted-1', offline: true });
  });
});
