/**
 * The deck coach end to end on a running troupe (`troupe mongo` + `troupe seed mtg` + `troupe start`)
 * with the shipped MTG data and no language model (LLM_PROVIDER=offline): GET /welcome, a multi-turn
 * conversation over POST /chat answered as SSE (meta research, a pasted deck from the dataset, a
 * strategy against the meta's leader, sideboard advice), the conversation reads, ownership and the
 * error statuses, and the `coach_chat` MCP tool with progress notifications through the official SDK
 * client. Every figure the coach prints is checked against an independent call of the same meta tool
 * over MCP with the arguments the coach's `tool_call` event shows.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { callToolWithProgress } from '../support/mcp-progress.js';
import { pollUntil } from '../support/async.js';
import { createUserKey, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

type Structured = Record<string, unknown>;

interface CoachEvent {
  event: string;
  id: string;
  data: Structured;
}

interface Turn {
  status: number;
  messageId: string | null;
  events: CoachEvent[];
  /** The concatenated `content` texts. */
  content: string;
  /** `tool_call` events as `status:tool`, in order. */
  toolCalls: string[];
  calling(tool: string): Structured;
  state: Structured;
}

interface ConversationView {
  conversation_id: string;
  created_at: string;
  state: Structured;
  messages: Array<{ role: 'user' | 'assistant'; content: string; at: string }>;
}

const FORMATS = ['Legacy', 'Modern', 'Pauper', 'Pioneer', 'Standard', 'Vintage'];
const META_RESEARCH_TOOLS = ['get_format_meta_rankings', 'get_format_matchup_stats', 'get_format_archetypes'];
const DECK_COACHING_TOOLS = ['get_enriched_deck', 'get_deck_matchup_stats', 'generate_deck_matchup_strategy', 'optimize_mainboard', 'optimize_sideboard'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OFFLINE = /no language model is configured/i;

const readDataset = <T>(file: string): T => JSON.parse(gunzipSync(readFileSync(new URL(`../../models/data/mtg/${file}`, import.meta.url))).toString('utf8')) as T;

/** The last Modern "Boros Energy" list of the dataset as an MTGO export (main deck, blank line, sideboard). */
function lastBorosEnergyList(): { text: string; main: number; side: number } {
  const cards = readDataset<Array<{ index: number; name: string }>>('cards.json.gz');
  const decklists = readDataset<Array<{ format: string; archetype: string; mainboard: Array<[number, number]>; sideboard: Array<[number, number]> }>>('decklists.json.gz');
  const names = new Map(cards.map((card) => [card.index, card.name]));
  const list = decklists.filter((deck) => deck.format === 'Modern' && deck.archetype === 'Boros Energy').at(-1);
  if (!list) throw new Error('no Modern Boros Energy list in the dataset');
  const lines = (section: Array<[number, number]>) =>
    section.map(([index, count]) => {
      const name = names.get(index);
      if (name === undefined) throw new Error(`card index ${index} is not in cards.json`);
      return `${count} ${name}`;
    });
  const count = (section: Array<[number, number]>) => section.reduce((n, [, c]) => n + c, 0);
  return { text: [...lines(list.mainboard), '', 'Sideboard', ...lines(list.sideboard)].join('\n'), main: count(list.mainboard), side: count(list.sideboard) };
}

/** Redis stream entry ids ("ms-seq") compared numerically. */
function streamIdAfter(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am! > bm! || (am === bm && as! > bs!);
}

/** Event names in order, with runs of `thinking` and `content` collapsed and tool calls spelt out. */
function outline(events: CoachEvent[]): string[] {
  const names = events.map((e) => (e.event === 'tool_call' ? `tool_call:${e.data.status}:${e.data.tool}` : e.event));
  return names.filter((name, i) => !(i > 0 && names[i - 1] === name && (name === 'thinking' || name === 'content')));
}

describe('deck coach on a running troupe (HTTP, SSE and MCP, offline)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const redisPrefix = `test-deck-coach-${process.pid}-${Date.now().toString(36)}`;
  let base = '';
  let key = '';
  let otherKey = '';
  let mcp: Client;
  const deck = lastBorosEnergyList();

  /** The conversation of section 2 and what its turns showed. */
  let conversationId = '';
  let topModern: Structured[] = [];
  const sentMessages: string[] = [];

  const tool = async (name: string, args: Structured): Promise<Structured> => {
    const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).to.not.equal(true);
    return result.structuredContent as Structured;
  };

  const request = (method: string, path: string, options: { apiKey?: string; body?: unknown } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.apiKey ?? key}`, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });

  /** POST /chat read to the end of its SSE stream (events with ids and JSON data). */
  async function chat(body: Structured, apiKey = key): Promise<Turn> {
    const response = await fetch(`${base}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    const raw = await response.text();
    expect(response.status, raw).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events: CoachEvent[] = [];
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => {
        expect(m.id, `every event has an id: ${m.event} ${m.data}`).to.be.a('string').and.not.equal('');
        events.push({ event: m.event ?? 'message', id: m.id!, data: JSON.parse(m.data) as Structured });
      },
    });
    parser.feed(raw);
    for (let i = 1; i < events.length; i += 1) expect(streamIdAfter(events[i]!.id, events[i - 1]!.id), `ids increase: ${events[i - 1]!.id} then ${events[i]!.id}`).to.equal(true);
    expect(new Set(events.map((e) => e.id)).size).to.equal(events.length);
    const errors = events.filter((e) => e.event === 'error');
    expect(errors, JSON.stringify(errors)).to.deep.equal([]);
    const messageId = response.headers.get('x-message-id');
    expect(events[0]?.event, raw).to.equal('metadata');
    expect(events[0]!.data.message_id).to.equal(messageId);
    expect(events.at(-2)?.event, raw).to.equal('state');
    expect(events.at(-1)?.event, raw).to.equal('done');
    expect(events.at(-1)!.data.messageId).to.equal(messageId);
    expect(events.filter((e) => e.event === 'reply'), 'the reply is left out of the stream').to.deep.equal([]);
    if (typeof body.message === 'string') sentMessages.push(body.message);
    const toolEvents = events.filter((e) => e.event === 'tool_call');
    return {
      status: response.status,
      messageId,
      events,
      content: events.filter((e) => e.event === 'content').map((e) => e.data.text as string).join(''),
      toolCalls: toolEvents.map((e) => `${e.data.status}:${e.data.tool}`),
      calling(name) {
        const calling = toolEvents.find((e) => e.data.status === 'calling' && e.data.tool === name);
        expect(calling, `a calling event for ${name} in ${JSON.stringify(toolEvents)}`).to.not.equal(undefined);
        return calling!.data.args as Structured;
      },
      state: events.at(-2)!.data,
    };
  }

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    const env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      // No model: the offline policy and narrator answer; the coach reaches its tools at troupe's own /mcp.
      LLM_PROVIDER: 'offline',
      LARGE_LANGUAGE_MODEL: '',
      COACH_MCP_URL: '',
      COACH_MCP_HEADER: '',
      GATEWAY_URL: '',
    });
    await startSeededMongo(mongoPort, env, processes);
    key = await createUserKey('coach-player', env);
    otherKey = await createUserKey('coach-rival', env);
    const troupe = spawnTroupe(['start'], env);
    processes.push(troupe);
    base = `http://127.0.0.1:${port}`;
    await pollUntil(
      async () => {
        if (troupe.exitStatus()) throw new Error(`troupe start exited: ${troupe.stderr()}`);
        return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 90_000, what: `${base}/readyz` },
    );
    mcp = new Client({ name: 'deck-coach-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });

  after(async function () {
    await mcp?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('GET /welcome starts a conversation with the workflows, their tools and the formats', async function () {
    const response = await request('GET', '/welcome');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const welcome = (await response.json()) as {
      conversation_id: string;
      message: string;
      available_formats: string[];
      workflows: Array<{ name: string; description: string; example_queries: string[]; tool_details: Array<{ name: string; description: string }> }>;
      tool_count: number;
      mcp_error?: string;
    };
    expect(welcome.conversation_id).to.match(UUID);
    expect(welcome.message.trim()).to.not.equal('');
    expect(welcome.message).to.match(OFFLINE);
    expect(welcome.available_formats).to.deep.equal(FORMATS);
    expect(welcome.tool_count).to.equal(8);
    expect(welcome.mcp_error).to.equal(undefined);

    const { tools } = await mcp.listTools();
    const descriptions = new Map(tools.map((t) => [t.name, t.description]));
    expect(welcome.workflows.map((w) => w.name)).to.have.members(['meta_research', 'deck_coaching']);
    for (const [name, expected] of [
      ['meta_research', META_RESEARCH_TOOLS],
      ['deck_coaching', DECK_COACHING_TOOLS],
    ] as const) {
      const workflow = welcome.workflows.find((w) => w.name === name)!;
      expect(workflow.description).to.be.a('string').and.not.equal('');
      expect(workflow.example_queries).to.be.an('array').that.is.not.empty;
      for (const query of workflow.example_queries) expect(query).to.be.a('string').and.not.equal('');
      expect(workflow.tool_details.map((t) => t.name)).to.have.members([...expected]);
      for (const detail of workflow.tool_details) {
        expect(detail.description, detail.name).to.be.a('string').and.not.equal('');
        expect(detail.description, `${detail.name} as tools/list describes it`).to.equal(descriptions.get(detail.name));
      }
    }

    const view = (await (await request('GET', `/conversations/${welcome.conversation_id}`)).json()) as ConversationView;
    expect(view.conversation_id).to.equal(welcome.conversation_id);
    expect(view.messages).to.have.length(1);
    expect(view.messages[0]).to.include({ role: 'assistant', content: welcome.message });
  });

  it('a meta question without a format asks for one and calls no tool', async function () {
    const turn = await chat({ message: 'what is winning right now?' });
    const metadata = turn.events[0]!.data;
    expect(metadata.conversation_id).to.match(UUID);
    expect(metadata.new).to.equal(true);
    conversationId = metadata.conversation_id as string;
    expect(turn.toolCalls, 'no tool runs without a format').to.deep.equal([]);
    expect(outline(turn.events)).to.deep.equal(['metadata', 'thinking', 'content', 'state', 'done']);
    expect(turn.content).to.include('Which format should I');
    for (const format of FORMATS) expect(turn.content).to.include(format);
    expect(turn.state).to.include({ conversation_id: conversationId, format: null, has_deck: false });
  });

  it('with the format set, "top decks over the last two weeks" ranks the meta over 14 days, with the tool\'s own figures', async function () {
    const turn = await chat({ message: 'what are the top decks over the last two weeks?', conversation_id: conversationId, format: 'Modern' });
    expect(turn.events[0]!.data).to.include({ conversation_id: conversationId, format: 'Modern', new: false });
    expect(outline(turn.events)).to.deep.equal([
      'metadata',
      'thinking',
      'tool_call:calling:get_format_meta_rankings',
      'tool_call:complete:get_format_meta_rankings',
      'content',
      'state',
      'done',
    ]);
    const args = turn.calling('get_format_meta_rankings');
    expect(args).to.include({ format: 'Modern', current_days: 14 });
    expect(turn.state).to.include({ conversation_id: conversationId, format: 'Modern', current_days: 14, has_deck: false });

    const rankings = await tool('get_format_meta_rankings', args);
    topModern = rankings.data as Structured[];
    expect(topModern.length).to.be.at.least(3);
    for (const row of topModern.slice(0, 3)) {
      expect(turn.content).to.include(row.archetype as string);
      expect(turn.content, `${row.archetype}'s share`).to.include(`${row.meta_share_current}%`);
    }
    expect(turn.content).to.match(OFFLINE);
  });

  it('a pasted deck from the dataset is parsed (60 main-deck cards) and the coach asks for its archetype', async function () {
    expect(deck.main).to.equal(60);
    const turn = await chat({ message: 'here is my deck', conversation_id: conversationId, deck_text: deck.text });
    expect(turn.toolCalls).to.deep.equal(['calling:get_enriched_deck', 'complete:get_enriched_deck']);
    expect(turn.content).to.include('60 main-deck');
    expect(turn.content).to.include(`${deck.side} sideboard`);
    expect(turn.content).to.match(/archetype/i);
    expect(turn.state).to.include({ has_deck: true, format: 'Modern', archetype: null, current_days: 14 });
  });

  it('"How do I beat the top archetype?" fetches the deck\'s matchups, then a strategy against the meta\'s leader', async function () {
    const turn = await chat({ message: 'How do I beat the top archetype?', conversation_id: conversationId, archetype: 'Boros Energy' });
    expect(turn.toolCalls).to.deep.equal([
      'calling:get_deck_matchup_stats',
      'complete:get_deck_matchup_stats',
      'calling:generate_deck_matchup_strategy',
      'complete:generate_deck_matchup_strategy',
    ]);
    const leader = topModern.map((row) => row.archetype as string).find((name) => name !== 'Boros Energy');
    const matchupArgs = turn.calling('get_deck_matchup_stats');
    expect(matchupArgs).to.include({ archetype: 'Boros Energy', format: 'Modern', days: 14 });
    const strategyArgs = turn.calling('generate_deck_matchup_strategy');
    expect(strategyArgs).to.include({ archetype: 'Boros Energy', format: 'Modern', days: 14, opponent_archetype: leader });
    const record = strategyArgs.matchup_stats as { win_rate: number; match_count: number };
    expect(record.win_rate).to.be.a('number');

    // The record passed to the strategy is the deck's row against the leader, as the tool gives it.
    const matchups = await tool('get_deck_matchup_stats', matchupArgs);
    const row = (matchups.matchup_stats as Array<{ opponent_archetype: string; win_rate: number | null; match_count: number }>).find((r) => r.opponent_archetype === leader);
    expect(row).to.include({ win_rate: record.win_rate, match_count: record.match_count });

    expect(turn.content).to.include(leader!);
    expect(turn.content).to.include(`${record.win_rate}%`);
    expect(turn.state).to.include({ archetype: 'Boros Energy', format: 'Modern', has_deck: true, current_days: 14 });
  });

  it('"What should my sideboard look like?" runs optimize_sideboard and shows its final sideboard', async function () {
    const turn = await chat({ message: 'What should my sideboard look like?', conversation_id: conversationId });
    expect(turn.toolCalls).to.deep.equal(['calling:optimize_sideboard', 'complete:optimize_sideboard']);
    const args = turn.calling('optimize_sideboard');
    expect(args).to.include({ archetype: 'Boros Energy', format: 'Modern', days: 14 });
    expect(args.top_n).to.be.a('number');

    const enriched = await tool('get_enriched_deck', { deck: deck.text });
    const sideboard = await tool('optimize_sideboard', { card_details: enriched.card_details, archetype: args.archetype, format: args.format, days: args.days, top_n: args.top_n });
    const finalSideboard = sideboard.final_sideboard as Array<{ name: string; quantity: number }>;
    expect(finalSideboard.reduce((n, c) => n + c.quantity, 0)).to.equal(15);
    const shown = finalSideboard.filter((card) => turn.content.includes(card.name));
    expect(shown, `a card of ${JSON.stringify(finalSideboard)} in the answer`).to.not.be.empty;
    expect(turn.state).to.include({ archetype: 'Boros Energy', has_deck: true });
  });

  it('GET /conversations/:id holds the history and the state; GET /conversations lists it', async function () {
    const response = await request('GET', `/conversations/${conversationId}`);
    expect(response.status).to.equal(200);
    const view = (await response.json()) as ConversationView;
    expect(view.conversation_id).to.equal(conversationId);
    expect(view.state).to.include({ format: 'Modern', has_deck: true, archetype: 'Boros Energy', days: 14 });
    const messages = view.messages[0]?.role === 'assistant' ? view.messages.slice(1) : view.messages;
    expect(messages.map((m) => m.role)).to.deep.equal(sentMessages.flatMap(() => ['user', 'assistant']));
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).to.deep.equal(sentMessages);
    for (const message of messages) expect(message.content.trim(), message.role).to.not.equal('');

    const listed = (await (await request('GET', '/conversations')).json()) as { conversations: Array<Structured> };
    const entry = listed.conversations.find((c) => c.conversation_id === conversationId);
    expect(entry, JSON.stringify(listed)).to.include({ format: 'Modern', archetype: 'Boros Energy', has_deck: true, messages: view.messages.length });
  });

  it('keeps a conversation to its owner and refuses bad requests with JSON errors', async function () {
    const foreign = await request('GET', `/conversations/${conversationId}`, { apiKey: otherKey });
    expect(foreign.status).to.equal(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).to.equal('not_found');
    const foreignChat = await fetch(`${base}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'what are the top decks?', conversation_id: conversationId }),
    });
    expect(foreignChat.status).to.equal(404);
    expect(foreignChat.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await foreignChat.json()) as { error: { code: string } }).error.code).to.equal('not_found');
    const othersList = (await (await request('GET', '/conversations', { apiKey: otherKey })).json()) as { conversations: Array<Structured> };
    expect(othersList.conversations.map((c) => c.conversation_id)).to.not.include(conversationId);

    const empty = await request('POST', '/chat', { body: { message: '', conversation_id: conversationId } });
    expect(empty.status).to.equal(400);
    expect(empty.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await empty.json()) as { error: { code: string; message: string } }).error).to.include({ code: 'bad_request' });

    const unknownId = randomUUID();
    const unknown = await request('POST', '/chat', { body: { message: 'what are the top decks?', conversation_id: unknownId } });
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('content-type')).to.match(/^application\/json/);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).to.equal('not_found');

    const idle = await request('POST', `/conversations/${conversationId}/cancel`);
    expect(idle.status).to.equal(409);
    expect(((await idle.json()) as { error: { code: string } }).error.code).to.equal('conflict');

    // None of the refused requests touched the history.
    const view = (await (await request('GET', `/conversations/${conversationId}`)).json()) as ConversationView;
    expect(view.messages.filter((m) => m.role === 'user').map((m) => m.content)).to.deep.equal(sentMessages);
  });

  it('DELETE /conversations/:id removes it', async function () {
    const deleted = await request('DELETE', `/conversations/${conversationId}`);
    expect(deleted.status).to.equal(200);
    expect(await deleted.json()).to.deep.include({ conversation_id: conversationId });
    const gone = await request('GET', `/conversations/${conversationId}`);
    expect(gone.status).to.equal(404);
    const listed = (await (await request('GET', '/conversations')).json()) as { conversations: Array<Structured> };
    expect(listed.conversations.map((c) => c.conversation_id)).to.not.include(conversationId);
    const again = await request('POST', '/chat', { body: { message: 'what are the top decks?', conversation_id: conversationId } });
    expect(again.status).to.equal(404);
  });

  describe('coach_chat over MCP', function () {
    let mcpConversation = '';

    it('answers in prose with the structured reply, reporting progress before the result', async function () {
      const { result, progress } = await callToolWithProgress(mcp, 'coach_chat', { message: 'what are the top Pioneer decks over the last 30 days?' });
      const beforeResult = progress.length;
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      expect(beforeResult, 'progress notifications before the result').to.be.greaterThan(0);
      expect(progress[0]!.message).to.match(/^metadata: /);

      const reply = result.structuredContent as { conversation_id: string; answer: string; state: Structured; tool_calls: Array<{ tool: string; status: string; summary: string }> };
      expect(reply.conversation_id).to.match(UUID);
      mcpConversation = reply.conversation_id;
      expect(reply.state).to.include({ format: 'Pioneer', current_days: 30 });
      expect(reply.tool_calls.map(({ tool: name, status }) => ({ tool: name, status }))).to.deep.equal([{ tool: 'get_format_meta_rankings', status: 'complete' }]);

      const text = (result.content[0] as { type: string; text: string }).text;
      expect(text).to.equal(reply.answer);
      expect(() => JSON.parse(text), 'prose, not JSON').to.throw();
      // The ranking the coach was given: the calling event's args, as the progress notifications show them.
      const calling = progress.map((p) => /^tool_call: (.*)$/s.exec(p.message ?? '')?.[1]).filter((json): json is string => json !== undefined).map((json) => JSON.parse(json) as Structured).find((e) => e.status === 'calling');
      expect(calling, JSON.stringify(progress)).to.include({ tool: 'get_format_meta_rankings' });
      expect(calling!.args).to.include({ format: 'Pioneer', current_days: 30 });
      const rankings = await tool('get_format_meta_rankings', calling!.args as Structured);
      const top = (rankings.data as Structured[])[0]!;
      expect(text).to.include(top.archetype as string);
      expect(text).to.include(`${top.meta_share_current}%`);

      // The same conversation over HTTP, for the same user.
      const view = (await (await request('GET', `/conversations/${mcpConversation}`)).json()) as ConversationView;
      expect(view.state).to.include({ format: 'Pioneer', current_days: 30 });
    });

    it('continues the conversation: "show me the matchups" fetches the Pioneer matchup matrix', async function () {
      expect(mcpConversation, 'the previous test started a conversation').to.match(UUID);
      const result = (await mcp.callTool({ name: 'coach_chat', arguments: { message: 'show me the matchups', conversation_id: mcpConversation } })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      const reply = result.structuredContent as { conversation_id: string; answer: string; state: Structured; tool_calls: Array<{ tool: string; status: string }> };
      expect(reply.conversation_id).to.equal(mcpConversation);
      expect(reply.state).to.include({ format: 'Pioneer', current_days: 30 });
      expect(reply.tool_calls.map(({ tool: name, status }) => ({ tool: name, status })), reply.answer).to.deep.equal([{ tool: 'get_format_matchup_stats', status: 'complete' }]);
      expect(reply.answer).to.include('Pioneer');
    });
  });
});
