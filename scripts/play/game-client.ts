/**
 * What `troupe play` needs from a game, wherever it runs: LocalGame (a GameSession in this process)
 * and RemoteGame (a troupe gateway over HTTP) both answer with the session's GameView, so the terminal
 * shows the same thing either way.
 */
import type { GameView } from '../../actors/game/session.js';

export type { GameView };

/** The person's seat and the bots, as `POST /games` takes them. */
export interface NewGame {
  bots: string[];
  kingdom?: string | string[];
  edition?: '1e' | '2e' | 'mixed';
  seed: number;
}

export interface GameClient {
  readonly gameId: string;
  /** "in-process" or the gateway's base URL, for the banner. */
  readonly where: string;
  /** The URL of the game's event stream (remote games only). */
  readonly eventsUrl: string | null;
  /** One command or a chain ("1, 2, 3", "buy Silver; end_phase"), applied all-or-nothing. */
  move(text: string): Promise<GameView>;
  /** The game as it is now (no events). */
  view(): Promise<GameView>;
  resign(): Promise<GameView>;
  /**
   * The person walks away. A local game only lives in this process, so leaving resigns it (returns the
   * final view); a remote game stays on the gateway (returns null).
   */
  leave(): Promise<GameView | null>;
}

/**
 * A request the game refused. `fatal` ones (bad API key, game gone) end `troupe play`; the others are
 * shown and the person tries again. `resync` says the local picture may be stale (fetch the view).
 */
export class GameRequestError extends Error {
  constructor(
    message: string,
    readonly details: { validRange?: { min: number; max: number }; validMoves?: string[] } = {},
    readonly options: { fatal?: boolean; resync?: boolean; usage?: boolean } = {},
  ) {
    super(message);
    this.name = 'GameRequestError';
  }

  get fatal(): boolean {
    return this.options.fatal === true;
  }

  get resync(): boolean {
    return this.options.resync === true;
  }

  /** The game could not be created as asked (a bad bot, kingdom or edition). */
  get usage(): boolean {
    return this.options.usage === true;
  }
}

/** validRange and validMoves from an error's details, when they have the right shape. */
export function errorDetails(details: unknown): GameRequestError['details'] {
  if (typeof details !== 'object' || details === null) return {};
  const { validRange, validMoves } = details as Record<string, unknown>;
  const out: GameRequestError['details'] = {};
  if (typeof validRange === 'object' && validRange !== null) {
    const { min, max } = validRange as Record<string, unknown>;
    if (typeof min === 'number' && typeof max === 'number') out.validRange = { min, max };
  }
  if (Array.isArray(validMoves) && validMoves.every((m) => typeof m === 'string')) out.validMoves = validMoves as string[];
  return out;
}
