/**
 * The game actor: one Dominion game per actor, shared by its players (anyone may join an open seat or
 * watch by game id). Each turn applies one message to the GameSession, lets bots move, answers the
 * caller with their GameView and publishes what happened to the game's feed: a public `update` for
 * everyone following, a private `view` for each seated person, and `done` when the game is over.
 */
import { RequestError, type ActorKind, type TurnContext } from '../runtime/contract.js';
import { feeds, http, messages, prompts, resources, tools, type GameMessages } from './contract.js';
import {
  createSession,
  endSession,
  executeMove,
  joinSession,
  resign,
  SessionError,
  viewFor,
  type GameSession,
} from './session.js';

export interface GameActorState {
  session: GameSession | null;
}

const requestError = (e: SessionError) => new RequestError(e.code, e.message, e.details);

/**
 * Tells everyone following what happened, each seated person their own view, and ends the feed when the
 * game is over. A mover's reasoning stays with the move in their own view only: it may reveal their hand.
 */
function publishChange(session: GameSession, events: string[], ctx: TurnContext, mover?: { userId: string; reasoning: string }) {
  ctx.publish('update', { gameId: session.gameId, status: session.status, moves: session.moves, turn: session.game?.turn ?? 0, events });
  for (const seat of session.seats) {
    if (seat.type !== 'user') continue;
    const reasoning = mover?.userId === seat.userId ? mover.reasoning : undefined;
    ctx.publish('view', viewFor(session, seat.userId, { message: 'The game changed', events, reasoning }), { to: seat.userId });
  }
  if (session.status === 'over' || session.status === 'ended') {
    ctx.publish('done', { gameId: session.gameId, status: session.status, result: viewFor(session, '', { message: '' }).result });
  }
}

function sessionOf(state: GameActorState, gameId: string): GameSession {
  if (!state.session) throw new RequestError('not_found', `no game ${gameId}`);
  return state.session;
}

export const gameKind: ActorKind<GameActorState> = {
  kind: 'game',
  stateful: true,
  access: 'shared',
  description: 'Dominion games (base set, 2-4 seats) for people, AI agents and bots.',
  messages,
  tools,
  resources,
  prompts,
  http,
  feeds,
  limits: { rate: { points: 1200, durationSeconds: 60 }, concurrent: 20 },
  initialState: () => ({ session: null }),
  handle(state, message, ctx) {
    const userId = message.ownerId;
    try {
      switch (message.type as keyof GameMessages) {
        case 'create': {
          if (state.session) throw new RequestError('conflict', `game ${ctx.actor.id} already exists`);
          const p = message.payload as GameMessages['create'];
          const { session, events } = createSession({
            gameId: ctx.actor.id,
            host: { userId, name: p.playerName },
            seats: p.seats,
            kingdom: p.kingdom,
            edition: p.edition,
            seed: p.seed,
            now: message.createdAt,
          });
          publishChange(session, events, ctx);
          const waiting = session.status === 'waiting' ? ` Waiting for ${session.seats.filter((s) => s.type === 'open').length} player(s) to join with game id ${session.gameId}.` : '';
          ctx.reply(viewFor(session, userId, { message: `Game ${session.gameId} created.${waiting}`, events }));
          return { session };
        }
        case 'join': {
          const session = sessionOf(state, ctx.actor.id);
          const events = joinSession(session, { userId, name: (message.payload as GameMessages['join']).playerName });
          publishChange(session, events, ctx);
          ctx.reply(viewFor(session, userId, { message: `You joined game ${session.gameId}.`, events }));
          return { session };
        }
        case 'observe': {
          const session = sessionOf(state, ctx.actor.id);
          ctx.reply(viewFor(session, userId, { message: session.status === 'playing' ? 'Your view of the game' : `The game is ${session.status}`, detail: (message.payload as GameMessages['observe']).detail }));
          return state;
        }
        case 'move': {
          const session = sessionOf(state, ctx.actor.id);
          const { move, reasoning } = message.payload as GameMessages['move'];
          const { events } = executeMove(session, userId, move);
          publishChange(session, events, ctx, reasoning === undefined ? undefined : { userId, reasoning });
          ctx.reply(viewFor(session, userId, { message: session.status === 'over' ? 'Game over' : `Played: ${move}`, events, reasoning }));
          return { session };
        }
        case 'resign': {
          const session = sessionOf(state, ctx.actor.id);
          const events = resign(session, userId);
          publishChange(session, events, ctx);
          ctx.reply(viewFor(session, userId, { message: 'You resigned', events }));
          return { session };
        }
        case 'end': {
          const session = sessionOf(state, ctx.actor.id);
          const events = endSession(session, userId);
          publishChange(session, events, ctx);
          ctx.reply(viewFor(session, userId, { message: 'The game was ended', events }));
          return { session };
        }
      }
    } catch (e) {
      if (e instanceof SessionError) throw requestError(e);
      throw e;
    }
    return state;
  },
};
