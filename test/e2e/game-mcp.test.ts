/**
 * Dominion end to end on a running troupe: an AI agent (the official MCP SDK client) plays a whole
 * game against a bot through /mcp, a second user joins and watches another game over HTTP and SSE,
 * and the game keeps each player's hand to themselves.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import fc from 'fast-check';
import { pollUntil } from '../support/async.js';
import { openSse, readEvents } from '../support/sse-client.js';
import { createUserKey, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

interface View {
  gameId: string;
  status: string;
  yourSeat: number | null;
  toMove: number | null;
  options: Array<{ index: number; description: string; command: string }>;
  validMoves: string[];
  pendingEffect: { card: string; effect: string; options: unknown[] } | null;
  gameState: { players: Array<{ hand?: string[]; handCount: number }> } | null;
  gameOver: boolean;
  result: { winners: number[]; scores: number[]; reason: string } | null;
  events: string[];
}

/** A simple money strategy over the numbered options, as an agent reading them would play. */
function choose(view: View): string {
  const find = (text: string) => view.options.find((o) => o.description.startsWith(text));
  if (view.pendingEffect) return '1';
  for (const wanted of ['Play all Treasures', 'Buy Province', 'Buy Gold', 'Buy Silver']) {
    const option = find(wanted);
    if (option) return String(option.index);
  }
  return String((find('End turn') ?? find('End Buy phase') ?? find('End Action phase') ?? view.options[view.options.length - 1]).index);
}

describe('Dominion over MCP and HTTP on a running troupe', function () {
  this.timeout(240_000);
  const processes: TroupeProcess[] = [];
  let base = '';
  const keys: Record<string, string> = {};
  let agent: Client;

  const view = (result: CallToolResult): View => {
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    return result.structuredContent as unknown as View;
  };
  const http = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  const redisPrefix = `test-game-${process.pid}-${Date.now().toString(36)}`;

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    const env = troupeEnv({ MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`, REDIS_PREFIX: redisPrefix, PORT: String(port), HOST: '127.0.0.1' });
    // The meta resources read the MTG dataset: a server over a seeded copy, not a load on every run.
    await startSeededMongo(mongoPort, env, processes);
    for (const name of ['agent', 'bob', 'carol']) keys[name] = await createUserKey(name, env);
    processes.push(spawnTroupe(['start'], env));
    base = `http://127.0.0.1:${port}`;
    await pollUntil(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 90_000, what: `${base}/readyz` });
    agent = new Client({ name: 'dominion-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${keys.agent}` } } }));
  });

  after(async function () {
    await agent?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  it('an agent plays a whole game against Big Money Ultimate through game_session, game_observe and game_execute', async function () {
    const started = view(await agent.callTool({ name: 'game_session', arguments: { action: 'new', seats: ['me', 'bot:bmu'], seed: 11 } }) as CallToolResult);
    expect(started.status).to.equal('playing');
    expect(started.yourSeat).to.equal(0);
    const gameId = started.gameId;
    let current = started;
    let moves = 0;
    while (!current.gameOver) {
      expect(current.toMove, 'the bot moves before the tool answers').to.equal(0);
      expect(current.validMoves).to.deep.equal(current.options.map((o) => o.command));
      current = view((await agent.callTool({ name: 'game_execute', arguments: { gameId, move: choose(current), reasoning: 'money first' } })) as CallToolResult);
      moves += 1;
      expect(moves).to.be.lessThan(2000);
    }
    expect(current.result!.winners.length).to.be.greaterThan(0);
    expect(current.result!.scores).to.have.length(2);
    const observed = view((await agent.callTool({ name: 'game_observe', arguments: { gameId, detail: 'minimal' } })) as CallToolResult);
    expect(observed).to.deep.include({ gameOver: true, gameState: null });
    const listed = (await agent.callTool({ name: 'game_session', arguments: { action: 'list' } })) as CallToolResult;
    expect((listed.structuredContent as { games: Array<{ gameId: string; status: string }> }).games).to.deep.include.members([
      { ...(listed.structuredContent as { games: Array<{ gameId: string }> }).games.find((g) => g.gameId === gameId)!, status: 'over' },
    ]);
  });

  it('serves game://{game_id} and meta://{format}/rankings as resources, and the workflow prompts', async function () {
    const templates = (await agent.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).to.include.members(['game://{game_id}', 'meta://{format}/rankings']);

    const started = view((await agent.callTool({ name: 'game_session', arguments: { action: 'new', seats: ['me', 'bot:bmu'], seed: 5 } })) as CallToolResult);
    const read = await agent.readResource({ uri: `game://${started.gameId}` });
    const resourceView = JSON.parse((read.contents[0] as { text: string }).text) as View;
    expect(resourceView.gameId).to.equal(started.gameId);
    expect(resourceView.yourSeat).to.equal(started.yourSeat);
    expect(resourceView.gameState!.players[started.yourSeat!]!.hand).to.deep.equal(started.gameState!.players[started.yourSeat!]!.hand);
    const badId = await agent.readResource({ uri: 'game://not-a-game' }).then(() => undefined, (error: Error) => error);
    expect(badId?.message).to.include('a game id like g-0123456789ab');

    type Rankings = { data: unknown[]; metadata: Record<string, unknown> };
    const rankings = JSON.parse(((await agent.readResource({ uri: 'meta://Modern/rankings' })).contents[0] as { text: string }).text) as Rankings;
    const tool = (await agent.callTool({ name: 'get_format_meta_rankings', arguments: { format: 'Modern' } })) as CallToolResult;
    // The same answer as the tool with its default windows, but for when it was computed.
    const untimed = ({ data, metadata }: Rankings) => ({ data, metadata: { ...metadata, timestamp: undefined } });
    expect(untimed(rankings)).to.deep.equal(untimed(tool.structuredContent as Rankings));
    expect(rankings.data.length).to.be.greaterThan(5);

    const { prompts } = await agent.listPrompts();
    expect(prompts.map((p) => p.name)).to.include.members(['play_dominion', 'analyse_meta', 'review_deck']);
    expect(prompts.find((p) => p.name === 'review_deck')!.arguments!.map((a) => [a.name, a.required ?? false])).to.deep.equal([
      ['format', true],
      ['deck', true],
      ['archetype', false],
    ]);
    const play = await agent.getPrompt({ name: 'play_dominion', arguments: { bot: 'bmu' } });
    expect((play.messages[0]!.content as { text: string }).text).to.include('"seats": ["me", "bot:bmu"]');
    const review = await agent.getPrompt({ name: 'review_deck', arguments: { format: 'Modern', deck: '4 Lightning Bolt\n4 Ragavan, Nimble Pilferer' } });
    expect((review.messages[0]!.content as { text: string }).text).to.include('Modern').and.include('4 Ragavan, Nimble Pilferer');
    const missing = await agent.getPrompt({ name: 'analyse_meta', arguments: {} }).then(() => undefined, (error: Error) => error);
    expect(missing?.message).to.match(/format/);
  });

  it('refuses invalid input with the spec\'s messages and leaves the game unchanged', async function () {
    const started = view((await agent.callTool({ name: 'game_session', arguments: { action: 'new', seed: 3 } })) as CallToolResult);
    const bad = (await agent.callTool({ name: 'game_execute', arguments: { gameId: started.gameId, move: '99' } })) as CallToolResult;
    expect(bad.isError).to.equal(true);
    expect((bad.content[0] as { text: string }).text).to.match(/Invalid selection: 99\. Valid range is 1-\d+/);
    const unknown = (await agent.callTool({ name: 'game_execute', arguments: { gameId: started.gameId, move: 'buy Platinum' } })) as CallToolResult;
    expect(unknown.isError).to.equal(true);
    const after = view((await agent.callTool({ name: 'game_observe', arguments: { gameId: started.gameId } })) as CallToolResult);
    expect(after.options).to.deep.equal(started.options);
    const missing = (await agent.callTool({ name: 'game_session', arguments: { action: 'join' } })) as CallToolResult;
    expect((missing.content[0] as { text: string }).text).to.match(/gameId is required/);
    const noGame = (await agent.callTool({ name: 'game_observe', arguments: { gameId: 'g-000000000000' } })) as CallToolResult;
    expect((noGame.content[0] as { text: string }).text).to.match(/no game g-000000000000/);
  });

  it('people join open seats over HTTP; only the seated user moves; spectators follow the feed without seeing hands', async function () {
    const created = await http(keys.bob, 'POST', '/games', { seats: [{ type: 'me' }, { type: 'open' }], seed: 5 });
    expect(created.status).to.equal(200);
    const game = (await created.json()) as View;
    expect(game.status).to.equal('waiting');

    const spectator = await openSse(`${base}/games/${game.gameId}/events`, { authorization: `Bearer ${keys.agent}` });
    const joinedResponse = await http(keys.carol, 'POST', `/games/${game.gameId}/join`);
    const joined = (await joinedResponse.json()) as View;
    expect(joinedResponse.status, JSON.stringify(joined)).to.equal(200);
    expect(joined).to.deep.include({ status: 'playing', yourSeat: 1 });
    expect((await http(keys.agent, 'POST', `/games/${game.gameId}/join`)).status).to.equal(409);

    const bobView = (await (await http(keys.bob, 'GET', `/games/${game.gameId}`)).json()) as View;
    expect(bobView.gameState!.players[0].hand).to.have.length(5);
    expect(bobView.gameState!.players[1].hand, 'never another player\'s hand').to.equal(undefined);
    const intruder = await http(keys.agent, 'POST', `/games/${game.gameId}/moves`, { move: '1' });
    expect(intruder.status).to.equal(403);
    const early = await http(keys.carol, 'POST', `/games/${game.gameId}/moves`, { move: '1' });
    expect(early.status).to.equal(409);
    expect(((await early.json()) as { error: { message: string } }).error.message).to.match(/not your move/);
    expect((await http(keys.bob, 'POST', `/games/${game.gameId}/moves`, { move: 'play_all_treasures' })).status).to.equal(200);
    expect((await http(keys.bob, 'GET', `/actors/game/${game.gameId}`)).status, 'the raw state holds every hand').to.equal(404);
    expect((await http(keys.carol, 'POST', `/games/${game.gameId}/resign`)).status).to.equal(200);

    const events = await readEvents(spectator);
    expect(events[0].event).to.equal('snapshot');
    const names = events.map((e) => e.event);
    expect(names).to.include('update');
    expect(names, 'views are only for the seated players').to.not.include('view');
    expect(names[names.length - 1]).to.equal('done');
    for (const e of events) expect(e.data).to.not.include('"hand"');
    const done = JSON.parse(events[events.length - 1].data) as { result: { reason: string; winners: number[] } };
    expect(done.result).to.deep.include({ reason: 'resigned', winners: [0] });

    const bad = await http(keys.bob, 'POST', '/games', { seats: ['me', 'bot:nobody'] });
    expect(bad.status).to.equal(400);
    expect((await http(keys.bob, 'GET', '/games/not-a-game')).status).to.equal(400);
  });

  it('troupe play --api-url plays on this gateway: the same options, then a resignation', async function () {
    const child = spawnTroupe(['play', '--api-url', base, '--api-key', keys.carol, '--seed', '3', '--bots', 'smithy-bm'], troupeEnv({}), { stdin: 'supply\n99\nresign\n' });
    processes.push(child);
    const status = await child.exited;
    const output = child.stdout();
    expect(status.code, output + child.stderr()).to.equal(0);
    expect(output).to.match(/g-[a-f0-9]{12}/);
    expect(output).to.match(/Province\s+\$8\s+8 left/);
    expect(output).to.match(/Error: Invalid selection: 99\. Valid range is 1-\d+\./);
    expect(output).to.include('Game over (resigned)');
    const games = (await (await http(keys.carol, 'GET', '/games')).json()) as { games: Array<{ status: string; seats: Array<{ name: string; you: boolean }> }> };
    expect(games.games.some((g) => g.status === 'over' && g.seats.some((seat) => seat.you) && g.seats.some((seat) => seat.name === 'smithy-bm (bot)'))).to.equal(true);
  });

  it('fuzzed requests to the contract routes (/games, /formats, /archetypes) never get a 5xx and change no one else\'s game', async function () {
    const created = (await (await http(keys.bob, 'POST', '/games', { seats: ['me', 'bot:bmu'], seed: 21 })).json()) as View;
    const before = await (await http(keys.bob, 'GET', `/games/${created.gameId}`)).text();
    const ids = fc.oneof(fc.constant(created.gameId), fc.constant('g-000000000000'), fc.stringMatching(/^[A-Za-z0-9._~%-]{0,20}$/));
    const paths = fc.oneof(
      fc.constantFrom('/games', '/formats', '/archetypes', '/games/'),
      ids.map((id) => `/games/${id}`),
      fc.tuple(ids, fc.constantFrom('moves', 'join', 'resign', 'end', 'nope')).map(([id, action]) => `/games/${id}/${action}`),
      fc.tuple(fc.constantFrom('/archetypes', '/games/' + created.gameId), fc.stringMatching(/^[a-z]{0,8}=[A-Za-z0-9%]{0,12}$/)).map(([path, query]) => `${path}?${query}`),
    );
    const bodies = fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.record({ move: fc.oneof(fc.string(), fc.integer(), fc.constant('1')), seats: fc.anything() }, { requiredKeys: [] }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), paths, bodies, async (method, path, body) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${keys.carol}`, 'content-type': 'application/json' },
          body: method === 'GET' || body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        expect(response.status, `${method} ${path} ${JSON.stringify(body)} -> ${text}`).to.be.lessThan(500);
        if (response.status >= 400) expect(JSON.parse(text), text).to.have.nested.property('error.code');
      }),
      { numRuns: 150 },
    );
    expect(await (await http(keys.bob, 'GET', `/games/${created.gameId}`)).text(), 'a user with no seat changed nothing').to.equal(before);
    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
  });
});
