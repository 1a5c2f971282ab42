/**
 * The flags of `troupe play` checked and turned into a PlayConfig: bots, kingdom, edition and seed are
 * validated here against the engine (for remote games too), so a mistake is one usage line before any
 * game exists.
 */
import { randomInt } from 'node:crypto';
import { BOT_NAMES, isBotName, type BotName } from '../../actors/game/bots/index.js';
import { createGame, EDITIONS, type Edition } from '../../actors/game/engine/index.js';

/** The flags as commander hands them over (all strings). */
export interface PlayFlags {
  bots: string;
  kingdom?: string;
  edition?: string;
  seed?: string;
  apiUrl?: string;
  apiKey?: string;
  game?: string;
}

export interface PlayConfig {
  bots: BotName[];
  /** A preset name or "random" (string), or an explicit list of kingdom cards. */
  kingdom?: string | string[];
  edition?: Edition;
  seed: number;
  /** Set for a game on a troupe gateway; absent for an in-process game. */
  api?: { url: string; key: string };
  /** A game on the gateway to go back to (your seat in it), instead of starting one. */
  gameId?: string;
}

export type PlayConfigResult = { ok: true; config: PlayConfig } | { ok: false; message: string };

const MAX_SEED = 2 ** 31;

export function resolvePlayOptions(flags: PlayFlags, env: NodeJS.ProcessEnv): PlayConfigResult {
  const fail = (message: string): PlayConfigResult => ({ ok: false, message });

  const bots = flags.bots.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (bots.length === 0) return fail(`--bots needs at least one bot; bots: ${BOT_NAMES.join(', ')}`);
  const unknown = bots.find((name) => !isBotName(name));
  if (unknown !== undefined) return fail(`unknown bot '${unknown}'; bots: ${BOT_NAMES.join(', ')}`);
  if (bots.length > 3) return fail(`a game has 2 to 4 seats (you and 1 to 3 bots); --bots names ${bots.length}`);

  const edition = flags.edition?.trim().toLowerCase();
  if (edition !== undefined && !isEdition(edition)) return fail(`unknown edition '${flags.edition}'; editions: ${EDITIONS.join(', ')}`);

  let seed: number;
  if (flags.seed === undefined) {
    seed = randomInt(MAX_SEED);
  } else {
    if (!/^\d+$/.test(flags.seed.trim()) || Number(flags.seed) >= MAX_SEED) return fail(`--seed must be an integer 0-${MAX_SEED - 1} (got "${flags.seed}")`);
    seed = Number(flags.seed);
  }

  const kingdom = kingdomOf(flags.kingdom);
  // The engine is the judge of kingdoms: a trial deal names the unknown preset or card.
  const trial = createGame({ players: bots.length + 1, seed, kingdom, edition });
  if (!trial.ok) return fail(`invalid --kingdom: ${trial.error.message}`);

  const config: PlayConfig = { bots: bots as BotName[], seed, ...(kingdom !== undefined ? { kingdom } : {}), ...(edition !== undefined ? { edition } : {}) };
  const gameId = flags.game?.trim();
  if (gameId !== undefined && !/^[A-Za-z0-9._:@-]{1,200}$/.test(gameId)) return fail(`--game must be a game id such as g-43c19b5c57b1 (got "${flags.game}")`);
  if (gameId !== undefined && (flags.kingdom !== undefined || flags.edition !== undefined || flags.seed !== undefined)) {
    return fail('--game goes back to an existing game: --kingdom, --edition and --seed only apply to a new one');
  }
  if (gameId !== undefined) config.gameId = gameId;
  if (flags.apiUrl === undefined) {
    if (flags.apiKey !== undefined) return fail('--api-key only makes sense with --api-url');
    if (gameId !== undefined) return fail('--game needs --api-url: only games on a gateway outlive `troupe play`');
    return { ok: true, config };
  }
  const url = flags.apiUrl.trim().replace(/\/+$/, '');
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return fail(`--api-url must be an http(s) URL (got "${flags.apiUrl}")`);
  const key = flags.apiKey ?? env.TROUPE_API_KEY;
  if (key === undefined || key.trim() === '') return fail('--api-url needs an API key: pass --api-key KEY or set TROUPE_API_KEY (create one with: troupe users create NAME)');
  return { ok: true, config: { ...config, api: { url, key: key.trim() } } };
}

const isEdition = (text: string): text is Edition => (EDITIONS as readonly string[]).includes(text);

/** "Village,Smithy,..." is a card list; anything else ("First Game", "random") a name. */
function kingdomOf(text: string | undefined): string | string[] | undefined {
  if (text === undefined) return undefined;
  if (!text.includes(',')) return text.trim();
  return text.split(',').map((card) => card.trim()).filter((card) => card !== '');
}
