/**
 * The deck coach's graph against the real meta service on the shipped data: the meta tools are served
 * by a real MCP server (the meta kind's handlers behind the SDK's stateless streamable-HTTP transport)
 * and reached through @langchain/mcp-adapters, as in production. Offline (the deterministic policy and
 * the narrator), with scripted fake chat models that emit tool calls, and with a fake OpenAI-compatible
 * server so the real provider code path runs.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { z } from 'zod';
import { ChatOpenAI } from '@langchain/openai';
import { conversationKind } from '../../actors/conversation/kind.js';
import { initialConversation, type ConversationState } from '../../actors/conversation/state.js';
import { offlineNarrator } from '../../actors/llm/offline-narrator.js';
import { metaKind } from '../../actors/meta/kind.js';
import { RequestError, type ActorResources, type McpEndpoint, type TurnContext } from '../../actors/runtime/contract.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server.js';
import { seededMongo, type SeededMongo } from '../support/seeded-dbpath.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };

/** A chat model that answers from a script: tool calls, then text; records what it was sent. */
class ScriptedToolModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  readonly boundTools: unknown[][] = [];
  constructor(private readonly script: Array<AIMessage | Error>) {
    super({});
  }
  _llmType() {
    return 'scripted-tools';
  }
  override bindTools(tools: unknown[]) {
    this.boundTools.push(tools);
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const next = this.script.shift();
    if (!next) throw new Error('script exhausted');
    if (next instanceof Error) throw next;
    return { generations: [{ text: typeof next.content === 'string' ? next.content : '', message: next }] };
  }
}

interface Turn {
  events: Array<{ event: string; data: Record<string, unknown> }>;
  reply: Record<string, unknown> | undefined;
  state: ConversationState;
  content: string;
  tools: string[];
}

describe('deck coach graph (real meta service over MCP, shipped data)', function () {
  this.timeout(60_000);
  let mongo: SeededMongo;
  let connection: mongoose.Connection;
  let server: Server;
  let mcpUrl: string;
  const toolCallsServed: string[] = [];

  before(async function () {
    mongo = await seededMongo();
    connection = await mongoose.createConnection(mongo.uri, { dbName: mongo.dbName }).asPromise();
    const resources = { mongo: connection, narrator: offlineNarrator(), chatModel: null, mcp: endpointAt(undefined), embedder: null, gateTimeoutMs: null };
    server = createServer(async (req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const mcp = new McpServer({ name: 'meta-test', version: '1.0.0' });
      for (const tool of metaKind.tools ?? []) {
        mcp.registerTool(tool.name, { description: tool.description, inputSchema: z.object(tool.input).strict() }, async (args: Record<string, unknown>) => {
          toolCallsServed.push(tool.name);
          try {
            const data = await metaKind.handle(
              { messageId: randomUUID(), type: tool.name, payload: metaKind.messages[tool.name]!.parse(args), ownerId: 'u', createdAt: Date.now() },
              { emit() {}, resources, signal: new AbortController().signal, logger: silent },
            );
            return { structuredContent: data as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(data) }] };
          } catch (error) {
            return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
          }
        });
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });

  after(async function () {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await connection?.close();
    await mongo?.stop();
  });

  function endpointAt(url: string | undefined): McpEndpoint {
    return { url: () => url, headersFor: async () => ({}) };
  }

  /** One turn of the conversation actor's handler, as a worker runs it (minus Redis and the commit). */
  async function turn(state: ConversationState, type: string, payload: Record<string, unknown>, chatModel: BaseChatModel | null = null, url = mcpUrl): Promise<Turn> {
    const events: Turn['events'] = [];
    let reply: Record<string, unknown> | undefined;
    const resources: ActorResources = { mongo: connection, narrator: offlineNarrator(), chatModel, mcp: endpointAt(url), embedder: null, gateTimeoutMs: null };
    const ctx = {
      actor: { kind: 'conversation', id: state.conversation_id },
      ownerId: 'user-1',
      emit: (event: string, data: unknown) => events.push({ event, data: data as Record<string, unknown> }),
      reply: (data: unknown) => (reply = data as Record<string, unknown>),
      fail() {},
      send() {},
      schedule() {},
      publish() {},
      signal: new AbortController().signal,
      logger: silent,
      resources,
    } satisfies TurnContext;
    const parsed = conversationKind.messages[type]!.parse(payload);
    const next = await conversationKind.handle(structuredClone(state), { messageId: randomUUID(), type, payload: parsed, ownerId: 'user-1', createdAt: Date.now() }, ctx);
    const content = events.filter((e) => e.event === 'content').map((e) => String(e.data.text)).join('');
    const tools = events.filter((e) => e.event === 'tool_call' && e.data.status === 'complete').map((e) => String(e.data.tool));
    return { events, reply, state: next, content, tools };
  }

  const fresh = () => initialConversation(randomUUID());

  async function metaRankings(format: string, days: number) {
    return (await metaKind.handle(
      { messageId: randomUUID(), type: 'get_format_meta_rankings', payload: metaKind.messages.get_format_meta_rankings!.parse({ format, current_days: days, previous_days: days }), ownerId: 'u', createdAt: Date.now() },
      { emit() {}, resources: { mongo: connection, narrator: offlineNarrator(), chatModel: null, mcp: endpointAt(undefined), embedder: null, gateTimeoutMs: null }, signal: new AbortController().signal, logger: silent },
    )) as { data: Array<{ archetype: string; meta_share_current: number }> };
  }

  describe('offline (deterministic policy, narrator)', function () {
    it('answers "top Modern decks over the last two weeks" with the real leaders and shares, in the spec\'s event order', async function () {
      const { events, content, state, tools } = await turn(fresh(), 'chat', { message: 'what are the top Modern decks over the last two weeks?', create: true });
      expect(tools).to.deep.equal(['get_format_meta_rankings']);
      const order = [...new Set(events.map((e) => e.event))];
      expect(order).to.deep.equal(['metadata', 'thinking', 'tool_call', 'content', 'state']);
      const truth = await metaRankings('Modern', 14);
      for (const row of truth.data.slice(0, 3)) expect(content).to.include(row.archetype).and.include(`${row.meta_share_current}%`);
      expect(content).to.match(/No language model is configured/);
      expect(content).not.to.include('{"');
      expect(state.format).to.equal('Modern');
      expect(state.current_days).to.equal(14);
      expect(state.current_workflow).to.equal('meta_research');
      expect(state.meta?.top[0]?.name).to.equal(truth.data[0]!.archetype);
      expect(state.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    });

    it('blocks every tool until a format is chosen, and meta tools until a window is', async function () {
      const noFormat = await turn(fresh(), 'chat', { message: 'what are the top decks?', create: true });
      expect(noFormat.tools).to.deep.equal([]);
      expect(noFormat.events.some((e) => e.event === 'tool_call')).to.equal(false);
      expect(noFormat.content).to.include('Which format').and.include('Modern').and.include('Pauper');
      const noDays = await turn(noFormat.state, 'chat', { message: 'what are the top decks?', format: 'Pioneer' });
      expect(noDays.tools).to.deep.equal([]);
      expect(noDays.content).to.include('how many days');
      const withDays = await turn(noDays.state, 'chat', { message: 'ok, the meta over the last 30 days' });
      expect(withDays.tools).to.deep.equal(['get_format_meta_rankings']);
      expect(withDays.state.previous_days).to.equal(null);
    });

    it('coaching: asks for the deck first, then the archetype, then fetches matchup stats before a strategy', async function () {
      const start = await turn(fresh(), 'chat', { message: 'optimize my sideboard', create: true, format: 'Modern', current_days: 30 });
      expect(start.tools).to.deep.equal([]);
      expect(start.content).to.include('Paste your decklist');
      const deck = `4 Guide of Souls\n4 Ocelot Pride\n4 Ragavan, Nimble Pilferer\n4 Galvanic Discharge\n4 Lightning Bolt\n4 Arid Mesa\n4 Sacred Foundry\n4 Inspiring Vantage\n5 Mountain\n4 Plains\n4 Static Prison\n4 Seasoned Pyromancer\n4 Flooded Strand\n3 Ajani, Nacatl Pariah\n4 Phlage, Titan of Fire's Fury\n\nSideboard\n3 Wear // Tear\n3 Blood Moon\n3 Surgical Extraction\n3 Celestial Purge\n3 Wrath of the Skies`;
      const pasted = await turn(start.state, 'chat', { message: 'here it is, optimize my sideboard', deck_text: deck });
      expect(pasted.tools).to.deep.equal(['get_enriched_deck']);
      expect(pasted.content).to.include('archetype dropdown');
      expect(pasted.state.card_details).to.have.length.greaterThan(10);
      const strategy = await turn(pasted.state, 'chat', { message: 'how do I beat the top archetype?', archetype: 'boros energy' });
      expect(strategy.tools).to.deep.equal(['get_format_meta_rankings', 'get_deck_matchup_stats', 'generate_deck_matchup_strategy']);
      const top = strategy.state.meta!.top.find((a) => a.name !== 'Boros Energy')!.name;
      const calling = strategy.events.find((e) => e.event === 'tool_call' && e.data.tool === 'generate_deck_matchup_strategy' && e.data.status === 'calling')!;
      expect((calling.data.args as Record<string, unknown>).opponent_archetype).to.equal(top);
      expect(strategy.state.archetype).to.equal('Boros Energy');
      expect(strategy.state.matchup_stats?.archetype).to.equal('Boros Energy');
      // The switch back to meta research keeps the deck; the sideboard targets the meta's leaders.
      const meta = await turn(strategy.state, 'chat', { message: 'show me the matchup matrix' });
      expect(meta.tools).to.deep.equal(['get_format_matchup_stats']);
      expect(meta.state.card_details).to.deep.equal(strategy.state.card_details);
      const sideboard = await turn(meta.state, 'chat', { message: 'now what about my sideboard?' });
      expect(sideboard.tools).to.deep.equal(['optimize_sideboard']);
      expect(sideboard.reply?.state).to.include({ has_deck: true, archetype: 'Boros Energy', format: 'Modern' });
    });

    it('answers an unknown request with what it can do, and refuses an unknown format or conversation', async function () {
      const help = await turn(fresh(), 'chat', { message: 'hello there', create: true });
      expect(help.content).to.include('Meta research').and.include('Deck coaching');
      let refused: unknown;
      await turn(fresh(), 'chat', { message: 'x', create: true, format: 'Brawl' }).catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(RequestError).with.property('code', 'bad_request');
      refused = undefined;
      await turn(fresh(), 'chat', { message: 'x', create: false }).catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(RequestError).with.property('code', 'not_found');
    });

    it('welcomes with the tool catalogue, or with none and a reason when the MCP server is down', async function () {
      const up = await turn(fresh(), 'welcome', {});
      expect(up.reply).to.include({ tool_count: 8 });
      expect(up.reply?.available_formats).to.deep.equal(['Legacy', 'Modern', 'Pauper', 'Pioneer', 'Standard', 'Vintage']);
      const workflows = up.reply?.workflows as Array<{ name: string; tool_details: unknown[] }>;
      expect(workflows.map((w) => [w.name, w.tool_details.length])).to.deep.equal([['meta_research', 3], ['deck_coaching', 5]]);
      expect(up.state.welcome?.tool_catalog).to.have.length(8);
      const down = await turn(fresh(), 'welcome', {}, null, 'http://127.0.0.1:9/mcp');
      expect(down.reply).to.include({ tool_count: 0 });
      expect(down.reply?.available_formats).to.have.length(6);
      expect((down.reply?.workflows as Array<{ tool_details: unknown[] }>).every((w) => w.tool_details.length === 0)).to.equal(true);
      let refused: unknown;
      await turn(down.state, 'chat', { message: 'top Modern decks last 14 days' }, null, 'http://127.0.0.1:9/mcp').catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(RequestError).with.property('code', 'unavailable');
    });
  });

  describe('with a chat model (scripted tool calls)', function () {
    const setUp = () => ({ ...fresh(), created_at: new Date().toISOString(), format: 'Legacy', current_days: 30 });

    it('runs the tools the model chooses, with session arguments from the state, and streams its answer', async function () {
      const model = new ScriptedToolModel([
        new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'get_format_meta_rankings', args: { format: 'Vintage', current_days: 7 } }, { id: 'c2', name: 'get_format_matchup_stats', args: {} }] }),
        new AIMessage('Dimir Tempo leads Legacy, as the rankings show.'),
      ]);
      const { tools, content, events, state } = await turn(setUp(), 'chat', { message: 'what is good in the meta?' }, model);
      expect(tools).to.deep.equal(['get_format_meta_rankings', 'get_format_matchup_stats']);
      const calling = events.find((e) => e.event === 'tool_call' && e.data.status === 'calling')!;
      expect(calling.data.args).to.include({ format: 'Legacy', current_days: 30 });
      expect(content).to.equal('Dimir Tempo leads Legacy, as the rankings show.');
      const second = model.seen[1]!;
      const results = second.filter((m) => m instanceof ToolMessage) as ToolMessage[];
      expect(results.map((m) => m.tool_call_id)).to.deep.equal(['c1', 'c2']);
      expect(String(results[0]!.content)).to.include('"archetype":"Dimir Tempo"');
      const bound = model.boundTools[0] as Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>;
      expect(bound.map((t) => t.function.name)).to.have.length(8);
      const rankings = bound.find((t) => t.function.name === 'get_format_meta_rankings')!;
      expect(Object.keys(rankings.function.parameters.properties)).not.to.include('format');
      expect(state.messages.at(-1)).to.include({ role: 'assistant', content: 'Dimir Tempo leads Legacy, as the rankings show.' });
    });

    it('blocks a coaching tool the model chooses without a deck, and calls nothing', async function () {
      const model = new ScriptedToolModel([new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'optimize_sideboard', args: {} }] })]);
      const before = toolCallsServed.length;
      const { tools, content } = await turn(setUp(), 'chat', { message: 'fix my sideboard' }, model);
      expect(tools).to.deep.equal([]);
      expect(toolCallsServed.length).to.equal(before);
      expect(content).to.include('Paste your decklist');
    });

    it('answers unavailable when the MCP server is down, rather than letting the model answer from nothing', async function () {
      const model = new ScriptedToolModel([new AIMessage('Boros Energy is great.')]);
      let refused: unknown;
      await turn(setUp(), 'chat', { message: 'what is good in the meta?' }, model, 'http://127.0.0.1:9/mcp').catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(RequestError).with.property('code', 'unavailable');
      expect(model.seen).to.have.length(0);
    });

    it('falls back to the deterministic policy when the model fails, and says so', async function () {
      const model = new ScriptedToolModel([new Error('provider exploded')]);
      const { tools, content } = await turn(setUp(), 'chat', { message: 'what are the top decks?' }, model);
      expect(tools).to.deep.equal(['get_format_meta_rankings']);
      expect(content).to.include('The language model failed (provider exploded)');
      expect(content).to.include('Legacy meta rankings');
    });
  });

  describe('with an OpenAI-compatible server (the real provider code path)', function () {
    let fake: FakeOpenAiServer;
    before(async () => (fake = await startFakeOpenAiServer()));
    after(async () => fake?.close());

    it('streams tool calls and the answer over chat completions', async function () {
      fake.enqueue({ toolCalls: [{ name: 'get_format_archetypes', args: {} }] }, { text: 'Legacy has many archetypes; Dimir Tempo is the most played.' });
      const model = new ChatOpenAI({ model: 'fake-model', apiKey: 'not-needed', configuration: { baseURL: fake.url }, maxRetries: 0 });
      const state = { ...fresh(), created_at: new Date().toISOString(), format: 'Legacy', current_days: 30 };
      const { tools, events, content } = await turn(state, 'chat', { message: 'which archetypes are there?' }, model);
      expect(tools).to.deep.equal(['get_format_archetypes']);
      expect(events.filter((e) => e.event === 'content').length).to.be.greaterThan(1);
      expect(content).to.equal('Legacy has many archetypes; Dimir Tempo is the most played.');
      expect(fake.requests[0]!.stream).to.equal(true);
      expect(fake.requests[0]!.tools?.map((t: { function: { name: string } }) => t.function.name)).to.include('optimize_sideboard');
      const toolResult = fake.requests[1]!.messages.find((m: { role: string }) => m.role === 'tool');
      expect(toolResult.content).to.include('Dimir Tempo');
    });
  });
});
