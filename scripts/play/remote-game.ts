/**
 * A game on a troupe gateway: `POST /games`, `GET /games/:id`, `POST /games/:id/moves` and
 * `POST /games/:id/resign` with `Authorization: Bearer KEY`. The gateway's game actor runs the same
 * GameSession functions as LocalGame, so the GameViews are the same.
 */
import type { GameView } from '../../actors/game/session.js';
import { errorDetails, GameRequestError, type GameClient, type NewGame } from './game-client.js';

/** Long enough for a busy gateway, short enough that a dead one does not hang the terminal. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface GatewayAddress {
  url: string;
  key: string;
}

export class RemoteGame implements GameClient {
  readonly eventsUrl: string;

  private constructor(
    private readonly api: GatewayAddress,
    readonly gameId: string,
  ) {
    this.eventsUrl = `${api.url}/games/${encodeURIComponent(gameId)}/events`;
  }

  get where(): string {
    return this.api.url;
  }

  static async start(api: GatewayAddress, game: NewGame): Promise<{ client: RemoteGame; view: GameView }> {
    const body = {
      seats: [{ type: 'me' }, ...game.bots.map((bot) => ({ type: 'bot', bot }))],
      ...(game.kingdom !== undefined ? { kingdom: game.kingdom } : {}),
      ...(game.edition !== undefined ? { edition: game.edition } : {}),
      seed: game.seed,
    };
    const view = await request(api, 'POST', '/games', body, { creating: true });
    if (typeof view.gameId !== 'string' || view.gameId === '') throw new GameRequestError(`${api.url} answered POST /games without a gameId`, {}, { fatal: true });
    const client = new RemoteGame(api, view.gameId);
    return { client, view: await client.withState(view) };
  }

  /** Goes back to a game on the gateway (after `quit`, or from another terminal): your view of it now. */
  static async rejoin(api: GatewayAddress, gameId: string): Promise<{ client: RemoteGame; view: GameView }> {
    const client = new RemoteGame(api, gameId);
    const view = await client.view();
    if (view.yourSeat === null) throw new GameRequestError(`you have no seat in game ${gameId}; join it first (POST /games/${gameId}/join)`, {}, { fatal: true });
    return { client, view };
  }

  async move(text: string): Promise<GameView> {
    return this.withState(await request(this.api, 'POST', `${this.path}/moves`, { move: text }));
  }

  async view(): Promise<GameView> {
    return request(this.api, 'GET', `${this.path}?detail=standard`);
  }

  async resign(): Promise<GameView> {
    return this.withState(await request(this.api, 'POST', `${this.path}/resign`, {}));
  }

  /** The game stays on the gateway. */
  async leave(): Promise<null> {
    return null;
  }

  private get path(): string {
    return `/games/${encodeURIComponent(this.gameId)}`;
  }

  /** A view without the game state (a minimal answer) is completed from GET, keeping its events. */
  private async withState(view: GameView): Promise<GameView> {
    if (view.gameState !== null || view.gameOver) return view;
    const full = await this.view();
    return { ...full, message: view.message, events: view.events };
  }
}

async function request(api: GatewayAddress, method: 'GET' | 'POST', path: string, body?: unknown, { creating = false } = {}): Promise<GameView> {
  const what = `${method} ${path.replace(/\?.*$/, '')}`;
  let response: Response;
  try {
    response = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${api.key}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    // Before the game exists there is nothing to retry into; during it the person may try again.
    throw new GameRequestError(`cannot reach ${api.url} (${what}): ${cause}`, {}, { fatal: creating });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.ok) {
    if (typeof json !== 'object' || json === null) throw new GameRequestError(`${api.url} answered ${what} with something other than a game view`, {}, { fatal: creating });
    return json as GameView;
  }
  throw failure(response.status, json, what, creating);
}

/** The gateway's `{ error: { code, message, details } }` as a GameRequestError, by status. */
function failure(status: number, json: unknown, what: string, creating: boolean): GameRequestError {
  const error = typeof json === 'object' && json !== null ? (json as { error?: { message?: unknown; details?: unknown } }).error : undefined;
  const message = typeof error?.message === 'string' ? error.message : `${what} failed with HTTP ${status}`;
  const details = errorDetails(error?.details);
  switch (status) {
    case 400:
      return new GameRequestError(message, details, { usage: creating, fatal: creating });
    case 401:
      return new GameRequestError(`the gateway refused the API key (HTTP 401): ${message}`, details, { fatal: true });
    case 404:
      return new GameRequestError(creating ? `the gateway has no game routes (HTTP 404 for ${what}): ${message}` : `the game is gone (HTTP 404): ${message}`, details, { fatal: true });
    case 403:
    case 409:
      return new GameRequestError(message, details, { resync: true, fatal: creating });
    default:
      return new GameRequestError(`${what}: HTTP ${status}: ${message}`, details, { fatal: creating });
  }
}
