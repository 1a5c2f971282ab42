/** Official setup for 2–4 players (plus a 1-player variant that only simulations use). */
import { BASIC_CARDS, CARD_COUNT, COPPER, CURSE, DUCHY, ESTATE, GARDENS, GOLD, PROVINCE, SILVER, type Edition, EDITIONS } from './cards.js';
import { DEFAULT_PRESET, kingdomFromList, kingdomFromPreset, randomKingdom, type KingdomChoice } from './kingdoms.js';
import { createRng, randomIndex, seedToInt, shuffleInPlace } from './rng.js';
import type { GameState, PlayerState } from './state.js';
import { draw } from './zones.js';

export interface GameConfig {
  /** 2–4. */
  players: number;
  /** Any number or string; the same seed and moves always replay the same game. */
  seed: number | string;
  /** A preset name (default "First Game"), "random", or an explicit list of 10 kingdom cards. */
  kingdom?: string | readonly string[];
  /** "2e" (default for random kingdoms), "1e" or "mixed"; limits random and explicit kingdoms. */
  edition?: Edition;
  /** Who takes the first turn; by default chosen at random from the seed, as the rules say. */
  firstPlayer?: number;
  /** End the game once every player has taken this many turns (a guard for simulations; 0 = none). */
  turnLimit?: number;
}

export type ConfigErrorCode = 'bad_players' | 'bad_seed' | 'bad_edition' | 'bad_first_player' | 'bad_turn_limit' | 'unknown_preset' | 'unknown_card' | 'bad_kingdom';

export type CreateResult = { ok: true; state: GameState } | { ok: false; error: { code: ConfigErrorCode; message: string } };

function chooseKingdom(config: GameConfig, rng: number[]): KingdomChoice {
  const { kingdom, edition } = config;
  if (Array.isArray(kingdom)) return kingdomFromList(kingdom, edition);
  const name = (kingdom as string | undefined) ?? DEFAULT_PRESET;
  if (name.trim().toLowerCase() === 'random') {
    const ed = edition ?? '2e';
    return { ok: true, cards: randomKingdom(ed, (n) => randomIndex(rng, n)), edition: ed, preset: null };
  }
  const preset = kingdomFromPreset(name);
  if (preset.ok && edition !== undefined) return { ...preset, edition };
  return preset;
}

export function createGame(config: GameConfig): CreateResult {
  const n = config.players;
  if (!Number.isInteger(n) || n < 2 || n > 4) return { ok: false, error: { code: 'bad_players', message: 'A game has 2 to 4 players' } };
  return setUp(config, n);
}

/**
 * A 1-player game for pace measurements (e.g. turns to 4 Provinces). It uses the 2-player pile sizes
 * and 10 Curses; nothing else differs from a normal game, so it runs on the same rules code.
 */
export function createSoloGame(config: Omit<GameConfig, 'players'>): CreateResult {
  return setUp({ ...config, players: 1 }, 1);
}

function setUp(config: GameConfig, n: number): CreateResult {
  if (typeof config.seed !== 'number' && typeof config.seed !== 'string') return { ok: false, error: { code: 'bad_seed', message: 'seed must be a number or a string' } };
  if (config.edition !== undefined && !EDITIONS.includes(config.edition)) return { ok: false, error: { code: 'bad_edition', message: `edition must be one of ${EDITIONS.join(', ')}` } };
  if (config.firstPlayer !== undefined && (!Number.isInteger(config.firstPlayer) || config.firstPlayer < 0 || config.firstPlayer >= n)) {
    return { ok: false, error: { code: 'bad_first_player', message: `firstPlayer must be 0..${n - 1}` } };
  }
  const turnLimit = config.turnLimit ?? 0;
  if (!Number.isInteger(turnLimit) || turnLimit < 0) return { ok: false, error: { code: 'bad_turn_limit', message: 'turnLimit must be a non-negative integer' } };
  const seed = seedToInt(config.seed);
  const rng = createRng(seed);
  const choice = chooseKingdom(config, rng);
  if (!choice.ok) return { ok: false, error: { code: choice.code, message: choice.message } };

  const victoryPile = n <= 2 ? 8 : 12;
  const supply = new Array<number>(CARD_COUNT).fill(0);
  supply[COPPER] = 60 - 7 * Math.max(n, 2);
  supply[SILVER] = 40;
  supply[GOLD] = 30;
  supply[ESTATE] = victoryPile;
  supply[DUCHY] = victoryPile;
  supply[PROVINCE] = victoryPile;
  supply[CURSE] = 10 * Math.max(n - 1, 1);
  for (const c of choice.cards) supply[c] = c === GARDENS ? victoryPile : 10;

  const players: PlayerState[] = [];
  for (let i = 0; i < n; i++) {
    const deck = [COPPER, COPPER, COPPER, COPPER, COPPER, COPPER, COPPER, ESTATE, ESTATE, ESTATE];
    shuffleInPlace(rng, deck);
    players.push({ deck, hand: [], discard: [], inPlay: [], aside: [], turns: 0 });
  }
  const first = config.firstPlayer ?? randomIndex(rng, n);
  const state: GameState = {
    version: 1,
    seed,
    rng,
    edition: choice.edition,
    preset: choice.preset,
    kingdom: choice.cards,
    piles: [...BASIC_CARDS, ...choice.cards],
    supply,
    trash: [],
    players,
    current: first,
    turn: 1,
    phase: 'action',
    actions: 1,
    buys: 1,
    coins: 0,
    bought: false,
    merchants: 0,
    silverPlayed: false,
    immune: 0,
    stack: [],
    turnLimit,
    result: null,
  };
  for (let i = 0; i < n; i++) draw(state, i, 5);
  return { ok: true, state };
}
