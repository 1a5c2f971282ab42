/**
 * The game actor's contract: its messages, the MCP tools `game_session`, `game_observe` and
 * `game_execute`, the HTTP routes under /games and the SSE feed GET /games/:id/events. Every surface
 * answers with the same GameView (session.ts), built on the shared options layer.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import {
  RequestError,
  type ActorMessage,
  type Caller,
  type FeedRouteContract,
  type HttpRouteContract,
  type PromptContract,
  type ResourceContract,
  type ToolContract,
} from '../runtime/contract.js';
import { BOT_NAMES } from './bots/index.js';
import { EDITIONS, PRESET_NAMES } from './engine/index.js';
import type { SeatRequest } from './session.js';

export const GAME_KIND = 'game';
export const LOBBY_KIND = 'game-lobby';

const GameId = z.string().regex(/^g-[a-f0-9]{12}$/, 'a game id like g-0123456789ab').describe('The game id (from game_session new or list)');
const Edition = z.enum(EDITIONS as ['2e', '1e', 'mixed']);
const Kingdom = z
  .union([z.string().min(1).max(60), z.array(z.string().min(1).max(40)).length(10)])
  .describe(`A preset name (${PRESET_NAMES.join(', ')}; default "First Game"), "random", or a list of 10 kingdom card names`);
const SeatText = z
  .string()
  .regex(new RegExp(`^(me|open|bot:(${BOT_NAMES.join('|')}))$`), `"me", "open" or "bot:NAME" with NAME one of ${BOT_NAMES.join(', ')}`);
const SeatObject = z.union([
  z.object({ type: z.literal('me') }).strict(),
  z.object({ type: z.literal('open') }).strict(),
  z.object({ type: z.literal('bot'), bot: z.enum(BOT_NAMES as [string, ...string[]]) }).strict(),
]);
const Seats = z
  .array(z.union([SeatText, SeatObject]))
  .min(2)
  .max(4)
  .describe('2-4 seats in turn order: "me" (you), "open" (someone joins later by game id) or "bot:NAME"; default ["me", "bot:bmu"]');
const Detail = z.enum(['minimal', 'standard', 'full']);
const MoveText = z.string().trim().min(1).max(2000).describe('One move ("buy Silver", "play_action Village", "2", "select 2") or a comma-chain applied all-or-nothing ("1, 2, 3")');
const Reasoning = z.string().max(4000).describe('Why you chose this move (echoed in the answer, and kept with the move in your own view on the game\'s feed; never shown to the other players)');
const PlayerName = z.string().min(1).max(100);

const seatRequest = (seat: z.infer<typeof SeatText> | z.infer<typeof SeatObject>): SeatRequest =>
  typeof seat === 'string' ? (seat.startsWith('bot:') ? { type: 'bot', bot: seat.slice(4) } : { type: seat as 'me' | 'open' }) : seat;

export const messages = {
  create: z
    .object({
      seats: z.array(SeatObject).min(2).max(4),
      kingdom: Kingdom.optional(),
      edition: Edition.optional(),
      seed: z.number().int().min(0).max(2 ** 32 - 1),
      playerName: PlayerName,
    })
    .strict(),
  join: z.object({ playerName: PlayerName }).strict(),
  observe: z.object({ detail: Detail.default('standard') }).strict(),
  move: z.object({ move: MoveText, reasoning: Reasoning.optional() }).strict(),
  resign: z.object({}).strict(),
  end: z.object({}).strict(),
};
export type GameMessages = { [T in keyof typeof messages]: z.infer<(typeof messages)[T]> };

export const lobbyMessages = { list: z.object({}).strict(), cards: z.object({}).strict() };

const newGameId = () => `g-${randomBytes(6).toString('hex')}`;
const nameOf = (caller: Caller) => caller.name ?? caller.userId;

function createMessage(input: { seats?: Array<z.infer<typeof SeatText> | z.infer<typeof SeatObject>>; kingdom?: string | string[]; edition?: '2e' | '1e' | 'mixed'; seed?: number }, caller: Caller): ActorMessage {
  return {
    actorId: newGameId(),
    type: 'create',
    payload: {
      seats: (input.seats ?? ['me', 'bot:bmu']).map(seatRequest),
      kingdom: input.kingdom,
      edition: input.edition,
      // The seed travels in the message, so the game is a pure function of its messages.
      seed: input.seed ?? randomInt(0, 2 ** 32 - 1),
      playerName: nameOf(caller),
    },
  };
}

/** GameView (session.ts) as the MCP output schema: nested parts are passed through whole. */
const viewOutput = {
  gameId: z.string(),
  status: z.enum(['waiting', 'playing', 'over', 'ended']),
  success: z.boolean(),
  message: z.string(),
  seats: z.array(z.object({ seat: z.number().int(), label: z.string(), type: z.enum(['user', 'bot', 'open']), name: z.string(), you: z.boolean() })),
  yourSeat: z.number().int().nullable(),
  toMove: z.number().int().nullable(),
  pendingEffect: z.record(z.string(), z.unknown()).nullable(),
  options: z.array(z.object({ index: z.number().int(), description: z.string(), command: z.string(), cards: z.array(z.string()).optional(), details: z.record(z.string(), z.unknown()).optional() })),
  optionsNote: z.string().nullable(),
  validMoves: z.array(z.string()),
  gameState: z.record(z.string(), z.unknown()).nullable(),
  gameOver: z.boolean(),
  result: z.record(z.string(), z.unknown()).nullable(),
  moves: z.number().int(),
  events: z.array(z.string()),
  reasoning: z.string().optional(),
};

const sessionInput = {
  action: z.enum(['new', 'join', 'list', 'end', 'resign']).describe('new: start a game (you take the "me" seat); join: take an open seat; list: your games and games waiting for players; end: the host ends the game; resign: give up your seat'),
  gameId: GameId.optional().describe('Required for join, end and resign'),
  seats: Seats.optional(),
  kingdom: Kingdom.optional(),
  edition: Edition.optional().describe('Which printing\'s cards a random kingdom draws from: 2e (default), 1e or mixed'),
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional().describe('Shuffle seed: the same seed and moves replay the same game'),
};

export const tools: ToolContract[] = [
  {
    name: 'game_session',
    title: 'Dominion game session',
    description:
      'Start, join, list, end or resign Dominion games (base set, 2-4 seats, bots available: ' +
      `${BOT_NAMES.join(', ')}). "new" answers with the game id and your first view; then use game_observe and game_execute. ` +
      '"list" answers {games: [...]}.',
    input: sessionInput,
    toMessage: (args, caller) => {
      const a = args as z.infer<z.ZodObject<typeof sessionInput>>;
      if (a.action === 'new') return createMessage(a, caller);
      if (a.action === 'list') return { kind: LOBBY_KIND, actorId: 'service', type: 'list', payload: {} };
      if (a.gameId === undefined) throw new RequestError('bad_request', `gameId is required for action "${a.action}"`);
      if (a.action === 'join') return { actorId: a.gameId, type: 'join', payload: { playerName: nameOf(caller) } };
      return { actorId: a.gameId, type: a.action, payload: {} };
    },
  },
  {
    name: 'game_observe',
    title: 'Observe a Dominion game',
    description:
      'What you may see of a game now: your hand (never another player\'s), supply, turn, phase, coins/actions/buys, the pending decision with numbered options, validMoves, and the result when over. detail: minimal (no gameState), standard (default) or full (also every card you own and the trash).',
    input: { gameId: GameId, detail: Detail.default('standard') },
    output: viewOutput,
    toMessage: (args) => ({ actorId: (args as { gameId: string }).gameId, type: 'observe', payload: { detail: (args as { detail: string }).detail } }),
  },
  {
    name: 'game_execute',
    title: 'Make a Dominion move',
    description:
      'Makes your move: a command from validMoves or an option ("buy Silver", "play_action Cellar", "discard_for_cellar Estate", "2", "select 2"), or a comma-chain applied all-or-nothing ("1, 2, 3"). ' +
      'Answers with success, message, pendingEffect (card, effect, step, numbered options with commands) when a card asks for a choice, gameState, validMoves, gameOver and result; bots move before it answers. ' +
      'An invalid move is an error that says why and lists the valid range or moves; the game is unchanged.',
    input: { gameId: GameId, move: MoveText, reasoning: Reasoning.optional() },
    output: viewOutput,
    toMessage: (args) => {
      const a = args as { gameId: string; move: string; reasoning?: string };
      return { actorId: a.gameId, type: 'move', payload: { move: a.move, ...(a.reasoning !== undefined ? { reasoning: a.reasoning } : {}) } };
    },
  },
];

const idParam = { id: GameId };

export const http: HttpRouteContract[] = [
  {
    method: 'POST',
    path: '/games',
    description: 'Start a game: {seats?, kingdom?, edition?, seed?}; answers with your view (gameId inside).',
    body: { seats: Seats.optional(), kingdom: Kingdom.optional(), edition: Edition.optional(), seed: sessionInput.seed },
    toMessage: ({ body }, caller) => createMessage(body as Parameters<typeof createMessage>[0], caller),
  },
  {
    method: 'GET',
    path: '/games',
    description: 'Your games and games waiting for players.',
    toMessage: () => ({ kind: LOBBY_KIND, actorId: 'service', type: 'list', payload: {} }),
  },
  {
    method: 'GET',
    path: '/dominion/cards',
    description: 'The base set\'s cards as the rules print them: name, cost, types, set (basic, both editions, 1e or 2e) and text.',
    toMessage: () => ({ kind: LOBBY_KIND, actorId: 'service', type: 'cards', payload: {} }),
  },
  {
    method: 'GET',
    path: '/games/:id',
    description: 'Your view of a game (?detail=minimal|standard|full).',
    params: idParam,
    query: { detail: Detail.default('standard') },
    toMessage: ({ params, query }) => ({ actorId: params.id as string, type: 'observe', payload: { detail: query.detail } }),
  },
  {
    method: 'POST',
    path: '/games/:id/join',
    description: 'Take an open seat.',
    params: idParam,
    toMessage: ({ params }, caller) => ({ actorId: params.id as string, type: 'join', payload: { playerName: nameOf(caller) } }),
  },
  {
    method: 'POST',
    path: '/games/:id/moves',
    description: 'Make a move: {move, reasoning?}.',
    params: idParam,
    body: { move: MoveText, reasoning: Reasoning.optional() },
    toMessage: ({ params, body }) => ({ actorId: params.id as string, type: 'move', payload: body }),
  },
  {
    method: 'POST',
    path: '/games/:id/resign',
    description: 'Give up your seat; the others share the win.',
    params: idParam,
    toMessage: ({ params }) => ({ actorId: params.id as string, type: 'resign', payload: {} }),
  },
  {
    method: 'POST',
    path: '/games/:id/end',
    description: 'The host ends the game for everyone.',
    params: idParam,
    toMessage: ({ params }) => ({ actorId: params.id as string, type: 'end', payload: {} }),
  },
];

export const feeds: FeedRouteContract[] = [
  {
    path: '/games/:id/events',
    description: 'SSE for players and spectators: a `snapshot` (your view), then `update` (public: what happened) and `view` (yours only) after every change, and `done` when the game ends.',
    params: idParam,
    actorId: (params) => params.id as string,
    snapshot: (params) => ({ actorId: params.id as string, type: 'observe', payload: { detail: 'standard' } }),
    finished: (snapshot) => (snapshot as { gameOver?: boolean } | null)?.gameOver === true,
  },
];

/** What an agent reads of a game: its own view (a spectator's has no hand), as game_observe answers. */
export const resources: ResourceContract[] = [
  {
    name: 'game',
    title: 'A Dominion game',
    description: 'Your view of a Dominion game: your hand, the supply, turn and phase, the pending decision with numbered options, and the result when over (game://{game_id}).',
    uriTemplate: 'game://{game_id}',
    toMessage: (variables) => {
      const gameId = GameId.safeParse(variables.game_id);
      if (!gameId.success) throw new RequestError('bad_request', `game://{game_id}: ${gameId.error.issues[0]!.message}`);
      return { actorId: gameId.data, type: 'observe', payload: { detail: 'standard' } };
    },
  },
];

const BotName = z.enum(BOT_NAMES as [string, ...string[]]);

export const prompts: PromptContract[] = [
  {
    name: 'play_dominion',
    title: 'Play a game of Dominion against a bot',
    description: 'Starts a base-set Dominion game against a bot and plays it to the end with game_session, game_observe and game_execute.',
    args: { bot: BotName.optional().describe(`The opponent: one of ${BOT_NAMES.join(', ')} (default ${BOT_NAMES[0]})`) },
    text: ({ bot }) =>
      `Play a game of Dominion (base set) against the bot "${bot ?? BOT_NAMES[0]}". ` +
      `Start it with game_session {"action": "new", "seats": ["me", "bot:${bot ?? BOT_NAMES[0]}"]}. ` +
      'On each turn read your view (game_observe, or the view game_execute answers with): your hand, coins, actions and buys, ' +
      'the supply, and the numbered options or the pending decision. Make one move at a time with game_execute, giving your reasoning; ' +
      'a good plan is to buy Gold and Silver early, add a few strong actions, and turn to Provinces once your deck can reach 8 coins. ' +
      'Keep going until the game is over, then report the final scores and what decided the game.',
  },
];
