/**
 * The game lobby: a stateless service listing the caller's games and the games waiting for players,
 * read from the game actors' committed states, and the rules' card table (for boards that print costs).
 */
import { actorStates } from '../../models/actor-record.js';
import type { ServiceKind } from '../runtime/contract.js';
import { LOBBY_KIND, lobbyMessages } from './contract.js';
import { CARD_NAMES, cardInfo } from './engine/index.js';
import { summaryOf, type GameSession } from './session.js';
import type { GameActorState } from './kind.js';

const LIST_LIMIT = 100;

export const gameLobbyKind: ServiceKind = {
  kind: LOBBY_KIND,
  stateful: false,
  description: 'Lists Dominion games (yours, and those waiting for players) and the base set\'s cards.',
  messages: lobbyMessages,
  concurrency: 4,
  async handle(message, ctx) {
    if (message.type === 'cards') return { cards: CARD_NAMES.map(cardInfo) };
    const userId = message.ownerId;
    const states = await actorStates<GameActorState>(
      ctx.resources.mongo,
      'game',
      { $or: [{ 'state.session.seats.userId': userId }, { 'state.session.status': 'waiting' }] },
      LIST_LIMIT,
    );
    const sessions = states.map((s) => s.session).filter((s): s is GameSession => s !== null);
    return { games: sessions.map((s) => summaryOf(s, userId)) };
  },
};
