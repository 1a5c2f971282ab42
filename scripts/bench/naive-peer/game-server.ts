/**
 * The naive peer of `bench:game` (an entry point, run through tsx): an MCP server for Dominion games
 * written the way one would without troupe, on the same stack — Koa, the MCP SDK's stateless streamable
 * HTTP as its documentation shows it (a new McpServer and transport per request, JSON answers), and each
 * game one MongoDB document: a move reads it, applies the move and replaces it (conditional on the move
 * count it read, so two moves at once cannot both land).
 *
 * The game itself is troupe's pure rules and session core (actors/game/session.ts) and the tools answer
 * with game_execute's output schema: the moves, bots and answers are the same work, only the platform
 * around them differs. What it gives up: no per-game ordering of concurrent calls (a conflicting move
 * fails instead of waiting its turn), no feed of the game for spectators or the web client, no
 * resumable answers, no per-user limits, one process holding everything.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import mongoose from 'mongoose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { tools } from '../../../actors/game/contract.js';
import { createSession, executeMove, SessionError, viewFor, type GameSession, type GameView, type SeatRequest } from '../../../actors/game/session.js';
import { apiKeyCheck, requestKey } from './api-keys.js';
import { GAMES_COLLECTION } from './contract.js';

const env = z
  .object({
    MONGODB_URI: z.string().min(1),
    MONGODB_DB: z.string().min(1),
    PORT: z.coerce.number().int().min(1).max(65_535),
    HOST: z.string().min(1).default('127.0.0.1'),
  })
  .parse(process.env);

interface GameDoc {
  _id: string;
  session: GameSession;
}

const connection = await mongoose.createConnection(env.MONGODB_URI, { dbName: env.MONGODB_DB }).asPromise();
const checkKey = apiKeyCheck(connection);
const games = connection.collection<GameDoc>(GAMES_COLLECTION);

const viewOutput = tools.find((t) => t.name === 'game_execute')?.output;
if (!viewOutput) throw new Error('the game contract has no game_execute output schema');

const Seat = z.string().regex(/^(me|open|bot:[a-z0-9-]+)$/);
const seatRequest = (seat: string): SeatRequest => (seat.startsWith('bot:') ? { type: 'bot', bot: seat.slice(4) } : { type: seat as 'me' | 'open' });

const answer = (view: GameView): CallToolResult => ({ structuredContent: view as unknown as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(view) }] });
const refusal = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/** The tool handlers' answer for a thrown error: the game's own refusals are the caller's mistake, said as they are. */
async function refusingSessionErrors(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SessionError) return refusal(`${error.message} (${error.code})`);
    throw error;
  }
}

function mcpServerFor(userId: string): McpServer {
  const server = new McpServer({ name: 'naive-game-peer', version: '1.0.0' });
  server.registerTool(
    'game_session',
    { description: 'Starts a Dominion game (action "new").', inputSchema: { action: z.literal('new'), seats: z.array(Seat).min(2).max(4).default(['me', 'bot:bmu']), seed: z.number().int().min(0).max(2 ** 32 - 1) }, outputSchema: viewOutput },
    async ({ seats, seed }) =>
      refusingSessionErrors(async () => {
        const gameId = `g-${randomBytes(6).toString('hex')}`;
        const { session, events } = createSession({ gameId, host: { userId, name: 'bench' }, seats: seats.map(seatRequest), seed, now: Date.now() });
        await games.insertOne({ _id: gameId, session });
        return answer(viewFor(session, userId, { message: `Game ${gameId} created.`, events }));
      }),
  );
  server.registerTool(
    'game_execute',
    { description: 'Makes your move in a Dominion game.', inputSchema: { gameId: z.string().regex(/^g-[a-f0-9]{12}$/), move: z.string().trim().min(1).max(2000) }, outputSchema: viewOutput },
    async ({ gameId, move }) =>
      refusingSessionErrors(async () => {
        const doc = await games.findOne({ _id: gameId });
        if (!doc) return refusal(`no game ${gameId} (not_found)`);
        const { session } = doc;
        const movesBefore = session.moves;
        const { events } = executeMove(session, userId, move);
        const { matchedCount } = await games.replaceOne({ _id: gameId, 'session.moves': movesBefore }, { session });
        if (matchedCount === 0) return refusal(`game ${gameId} changed meanwhile; observe it and try again (conflict)`);
        return answer(viewFor(session, userId, { message: session.status === 'over' ? 'Game over' : `Played: ${move}`, events }));
      }),
  );
  return server;
}

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'] }));
app.use(async (ctx) => {
  if (ctx.path !== '/mcp' || ctx.method !== 'POST') {
    ctx.status = 405;
    ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST /mcp' }, id: null };
    return;
  }
  const key = requestKey(ctx.get('authorization'), ctx.get('x-api-key'));
  const userId = key === undefined ? undefined : await checkKey(key);
  if (userId === undefined) {
    ctx.status = 401;
    ctx.body = { jsonrpc: '2.0', error: { code: -32001, message: 'a valid API key is required' }, id: null };
    return;
  }
  const server = mcpServerFor(userId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.respond = false;
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
});

const http = createServer(app.callback());
http.listen(env.PORT, env.HOST);
await once(http, 'listening');
console.log(`naive game peer listening on http://${env.HOST}:${env.PORT}/mcp`);

async function shutdown() {
  http.close();
  http.closeAllConnections();
  await connection.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
