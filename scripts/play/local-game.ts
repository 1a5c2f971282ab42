/**
 * A game in this process: the same GameSession functions the game actor runs, with the person as the
 * host (user id "you", name "You") and no persistence.
 */
import { createSession, executeMove, resign, SessionError, viewFor, type GameSession, type GameView } from '../../actors/game/session.js';
import { errorDetails, GameRequestError, type GameClient, type NewGame } from './game-client.js';

const YOU = { userId: 'you', name: 'You' };

export class LocalGame implements GameClient {
  readonly where = 'in-process';
  readonly eventsUrl = null;

  private constructor(private readonly session: GameSession) {}

  get gameId(): string {
    return this.session.gameId;
  }

  /** Deals the game; the first view carries the bots' moves up to the person's first decision. */
  static start(game: NewGame): { client: LocalGame; view: GameView } {
    const { session, events } = guarded(
      () =>
        createSession({
        gameId: `local-${game.seed}`,
        host: YOU,
        seats: [{ type: 'me' }, ...game.bots.map((bot) => ({ type: 'bot' as const, bot }))],
        kingdom: game.kingdom,
        edition: game.edition,
        seed: game.seed,
        now: Date.now(),
      }),
      { usage: true },
    );
    const client = new LocalGame(session);
    return { client, view: client.viewWith('The game has started', events) };
  }

  async move(text: string): Promise<GameView> {
    const { events } = guarded(() => executeMove(this.session, YOU.userId, text));
    return this.viewWith(`Move: ${text}`, events);
  }

  async view(): Promise<GameView> {
    return this.viewWith('', []);
  }

  async resign(): Promise<GameView> {
    const events = guarded(() => resign(this.session, YOU.userId));
    return this.viewWith('You resigned', events);
  }

  async leave(): Promise<GameView> {
    return this.resign();
  }

  private viewWith(message: string, events: string[]): GameView {
    return viewFor(this.session, YOU.userId, { message, events, detail: 'standard' });
  }
}

/**
 * SessionError → GameRequestError (the session is unchanged); anything else is a bug and propagates.
 * `usage`: a refused creation is about the flags the person gave.
 */
function guarded<T>(run: () => T, { usage = false } = {}): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    throw new GameRequestError(error.message, errorDetails(error.details), { usage });
  }
}
