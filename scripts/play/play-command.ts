/**
 * `troupe play`: a person plays Dominion against bots in the terminal, in-process (LocalGame) or on a
 * troupe gateway (RemoteGame, `--api-url`). Each time it is the person's move: what happened since the
 * last prompt, the situation, the numbered options, then `> `. Input is read line by line, so a pipe
 * works as well as a terminal. Returns the exit code; problems before the game go to stderr.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { GameRequestError, type GameClient, type GameView, type NewGame } from './game-client.js';
import { createStyle, renderError, renderEvents, renderHand, renderHelp, renderLog, renderOptions, renderResult, renderStart, renderSupply, renderTurn, type Style } from './game-display.js';
import { InputLines } from './input-lines.js';
import { LocalGame } from './local-game.js';
import type { PlayConfig } from './play-options.js';
import { RemoteGame } from './remote-game.js';

export { resolvePlayOptions, type PlayFlags } from './play-options.js';

type Output = Pick<NodeJS.WriteStream, 'write'>;

export interface PlayIo {
  input: NodeJS.ReadableStream;
  stdout: Output;
  stderr: Output;
  color: boolean;
  /** Repeat each input line after the prompt (a piped transcript then reads like a terminal session). */
  echo: boolean;
}

const defaultIo = (): PlayIo => ({
  input: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  echo: process.stdin.isTTY !== true,
});

/** Lines `log` shows. */
const LOG_SHOWN = 30;
/** Pause between two looks at a remote game while another seat is moving or the gateway is away. */
const WAIT_POLL_MS = 1_000;
/** Looks at a remote game in a row that may fail before `troupe play` gives up. */
const LOOK_ATTEMPTS = 10;

export async function runPlay(config: PlayConfig, io: PlayIo = defaultIo()): Promise<number> {
  const style = createStyle(io.color);
  const game: NewGame = { bots: config.bots, kingdom: config.kingdom, edition: config.edition, seed: config.seed };
  let started: { client: GameClient; view: GameView };
  try {
    if (config.api && config.gameId !== undefined) started = await RemoteGame.rejoin(config.api, config.gameId);
    else started = config.api ? await RemoteGame.start(config.api, game) : LocalGame.start(game);
  } catch (error) {
    if (!(error instanceof GameRequestError)) throw error;
    io.stderr.write(`${error.usage ? 'error:' : 'troupe:'} ${error.message}\n`);
    return error.usage ? 2 : 1;
  }
  const { client } = started;
  io.stdout.write(renderStart(started.view, { seed: config.gameId === undefined ? config.seed : null, kingdom: config.kingdom, where: client.where, eventsUrl: client.eventsUrl }, style));
  const input = new InputLines(io.input);
  try {
    return await playLoop(client, started.view, input, io, style);
  } catch (error) {
    if (!(error instanceof GameRequestError)) throw error;
    io.stderr.write(`troupe: ${error.message}\n`);
    return 1;
  } finally {
    input.close();
  }
}

/** What to print before the next prompt. */
type Show = 'turn' | 'options' | 'nothing';

async function playLoop(client: GameClient, first: GameView, input: InputLines, io: PlayIo, style: Style): Promise<number> {
  const remote = client.eventsUrl !== null;
  const history: string[] = [];
  let view = first;
  let show: Show = 'turn';
  let waitingShown = false;
  const out = (text: string) => io.stdout.write(text);

  for (;;) {
    if (view.events.length > 0) {
      out(renderEvents(view.events, style));
      history.push(...view.events);
      view = { ...view, events: [] };
    }
    if (view.gameOver) {
      out(renderResult(view, style));
      return 0;
    }
    if (view.toMove !== view.yourSeat) {
      // Only a remote game with other people in it gets here: someone else is moving.
      if (!waitingShown) out(`Waiting for ${view.toMove === null ? 'the game to start' : (view.seats[view.toMove]?.label ?? 'another seat')}...\n`);
      waitingShown = true;
      await delay(WAIT_POLL_MS);
      view = await retried(() => client.view(), io, style);
      show = 'turn';
      continue;
    }
    waitingShown = false;
    if (show === 'turn') out(renderTurn(view, style));
    else if (show === 'options') out(renderOptions(view, style));
    out('> ');

    const line = await input.next();
    if (line === null) {
      out(`\nInput ended: the game was left unfinished${remote ? ` (game ${client.gameId} stays on ${client.where})` : ''}.\n`);
      return 0;
    }
    if (io.echo) out(`${line}\n`);
    const text = line.trim();
    show = 'nothing';
    switch (text.toLowerCase()) {
      case '':
        continue;
      case 'help':
      case '?':
        out(renderHelp(remote));
        continue;
      case 'hand':
        out(renderHand(view));
        continue;
      case 'supply':
        out(renderSupply(view.gameState));
        continue;
      case 'log':
        out(renderLog(history, LOG_SHOWN, style));
        continue;
      case 'options':
      case 'look':
        show = 'turn';
        continue;
      case 'resign':
      case 'quit':
      case 'exit': {
        const quitting = text.toLowerCase() !== 'resign';
        const final = await attempt(() => (quitting ? client.leave() : client.resign()));
        if (final === undefined) {
          show = 'options';
          continue;
        }
        if (final === null) {
          out(`Left game ${client.gameId}; it is still running on ${client.where}.\n`);
          return 0;
        }
        view = final;
        continue;
      }
    }
    const next = await attempt(() => client.move(text));
    if (next === undefined) {
      show = 'options';
      continue;
    }
    view = next;
    show = 'turn';
  }

  /**
   * Runs a request; a refusal is printed and gives undefined (the game is unchanged), a fatal one
   * propagates. A 403/409 means the picture here may be stale, so the game is looked at again.
   */
  async function attempt<T>(run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof GameRequestError) || error.fatal) throw error;
      out(renderError(error, style));
      if (error.resync) view = await retried(() => client.view(), io, style);
      return undefined;
    }
  }
}

/** A look at the game that tries again for a while when the gateway is away (fatal errors propagate). */
async function retried(run: () => Promise<GameView>, io: PlayIo, style: Style): Promise<GameView> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof GameRequestError) || error.fatal) throw error;
      if (attempt >= LOOK_ATTEMPTS) throw new GameRequestError(`giving up after ${attempt} failed looks at the game: ${error.message}`, {}, { fatal: true });
      io.stdout.write(renderError(error, style));
      await delay(WAIT_POLL_MS);
    }
  }
}
