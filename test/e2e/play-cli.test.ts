import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSession, executeMove, resign, SessionError, viewFor, type GameSession, type ObserveDetail } from '../../actors/game/session.js';
import { withDeadline } from '../support/async.js';
import { troupeEnv } from '../support/troupe-process.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const STEP_MS = 15_000;

/** `troupe play ...` with piped stdin, read prompt by prompt. */
class PlayProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  private output = '';
  private read = 0;
  private stderrText = '';

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, ['bin/troupe.js', 'play', ...args], { cwd: repoRoot, env: troupeEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString('utf8')));
    this.child.stdin.on('error', () => {}); // the process may exit before reading everything
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  get stdout(): string {
    return this.output;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** The output up to the next `> ` prompt, or null (with the rest in `rest()`) once the process ends. */
  async next(): Promise<string | null> {
    const prompt = new Promise<string | null>((resolve) => {
      const check = () => {
        if (this.output.length > this.read && this.output.endsWith('> ')) {
          cleanup();
          const chunk = this.output.slice(this.read);
          this.read = this.output.length;
          resolve(chunk);
        }
      };
      const ended = () => {
        cleanup();
        resolve(null);
      };
      const cleanup = () => {
        this.child.stdout.off('data', check);
        this.child.off('close', ended);
      };
      this.child.stdout.on('data', check);
      this.child.once('close', ended);
      if (this.child.exitCode !== null) ended();
      else check();
    });
    return withDeadline(prompt, STEP_MS, `a "> " prompt from troupe play (output so far:\n${this.output.slice(-2000)})`);
  }

  /** The output since the last prompt. */
  rest(): string {
    return this.output.slice(this.read);
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  end(): void {
    this.child.stdin.end();
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

interface Option {
  index: number;
  description: string;
}

/** The numbered options printed in a chunk (the last list in it). */
function optionsIn(chunk: string): Option[] {
  const list = chunk.slice(chunk.lastIndexOf('Options:'));
  return [...list.matchAll(/^\s+\[(\d+)\] (.+)$/gm)].map((m) => ({ index: Number(m[1]), description: m[2]! }));
}

/** Province, Gold, Silver, treasures, else end the phase or turn; any pending decision: option 1. */
function pick(chunk: string): number {
  const options = optionsIn(chunk);
  expect(options, `options in:\n${chunk}`).to.not.be.empty;
  if (/^Decision:/m.test(chunk)) return 1;
  for (const prefix of ['Buy Province', 'Buy Gold', 'Buy Silver', 'Play all Treasures', 'End turn', 'End']) {
    const option = options.find((o) => o.description.startsWith(prefix));
    if (option) return option.index;
  }
  return 1;
}

describe('troupe play', function () {
  this.timeout(60_000);
  const spawned: PlayProcess[] = [];
  const play = (args: string[], env: Record<string, string> = {}) => {
    const child = new PlayProcess(args, env);
    spawned.push(child);
    return child;
  };

  afterEach(() => {
    for (const child of spawned.splice(0)) child.kill();
  });

  it('plays a whole local game against bmu to the result and exits 0', async () => {
    const game = play(['--seed', '7', '--bots', 'bmu']);
    let prompts = 0;
    const rounds: number[] = [];
    for (let chunk = await game.next(); chunk !== null; chunk = await game.next()) {
      prompts += 1;
      expect(prompts, 'prompts before the game ended').to.be.below(500);
      // Rounds, not the engine's turn count (which counts the bot's turns too).
      const round = /== Round (\d+) · your turn/.exec(chunk);
      if (round && Number(round[1]) !== rounds.at(-1)) rounds.push(Number(round[1]));
      if (prompts === 1) {
        expect(chunk).to.include('Seats: Player 1 You ← you, Player 2 bmu (bot)');
        expect(chunk).to.match(/== Round 1 · your turn · action phase ==/);
        expect(chunk).to.match(/^\$0 · 1 action · 1 buy$/m);
        expect(chunk).to.match(/^Hand: (Copper|Estate)(, (Copper|Estate)){4}$/m);
      }
      game.send(String(pick(chunk)));
    }
    expect(await game.exited).to.equal(0);
    expect(rounds.slice(0, 3), 'one round per turn of yours').to.deep.equal([1, 2, 3]);
    const end = game.rest();
    expect(end).to.match(/^Game over \((provinces|piles)\): Players? .+ VP$/m);
    expect(end).to.match(/^ {2}Player 1: You\s+\d+ VP\s+\d+ turns/m);
    expect(end).to.match(/^ {2}Player 2: bmu \(bot\)\s+\d+ VP\s+\d+ turns/m);
    expect(end).to.match(/^You (win!|lose\.|share the win\.)$/m);
    expect(game.stderr).to.equal('');
  });

  it('help explains picking, commands, chains and the other commands', async () => {
    const game = play(['--seed', '7']);
    await game.next();
    game.send('help');
    const help = (await game.next())!;
    for (const word of ['select N', 'buy Silver', '1, 2, 3', 'all or nothing', 'hand', 'supply', 'log', 'resign', 'quit']) expect(help).to.include(word);
    game.end();
    expect(await game.exited).to.equal(0);
  });

  it('names a random kingdom as random', async () => {
    const game = play(['--seed', '7', '--kingdom', 'random']);
    const start = (await game.next())!;
    expect(start).to.match(/^Kingdom: random kingdom \(/m);
    game.end();
    expect(await game.exited).to.equal(0);
  });

  it('supply lists every pile with its cost and count', async () => {
    const game = play(['--seed', '7']);
    await game.next();
    game.send('supply');
    const supply = (await game.next())!;
    expect(supply).to.match(/^\s+Province\s+\$8\s+8 left$/m);
    expect(supply).to.match(/^\s+Copper\s+\$0\s+46 left$/m);
    expect(supply).to.match(/^\s+Smithy\s+\$4\s+10 left$/m);
    game.end();
    expect(await game.exited).to.equal(0);
  });

  it('an out-of-range selection prints an Error line with the valid range and shows the same options again', async () => {
    const game = play(['--seed', '7']);
    const before = optionsIn((await game.next())!);
    game.send('99');
    const after = (await game.next())!;
    expect(after).to.match(new RegExp(`^Error: Invalid selection: 99\\. Valid range is 1-${before.length}\\.$`, 'm'));
    expect(optionsIn(after)).to.deep.equal(before);
    game.send('select 99');
    expect(await game.next()).to.match(/^Error: Invalid selection: 99\. Valid range is/m);
    game.end();
    expect(await game.exited).to.equal(0);
  });

  it('accepts chained input as one move', async () => {
    const game = play(['--seed', '7']);
    await game.next();
    game.send('1, 2');
    const after = (await game.next())!;
    expect(after).to.not.include('Error:');
    expect(after.match(/^ {2}Player 1 played Copper$/gm)).to.have.length.above(0);
    expect(after).to.match(/^ {2}Player 1 bought \w+/m);
    expect(after).to.match(/buy phase/);
    game.end();
    expect(await game.exited).to.equal(0);
  });

  it('leaves an unfinished game when stdin ends and exits 0', async () => {
    const game = play(['--seed', '7']);
    await game.next();
    game.end();
    expect(await game.next()).to.equal(null);
    expect(await game.exited).to.equal(0);
    expect(game.rest()).to.include('the game was left unfinished');
  });

  it('rejects an unknown bot with exit code 2 and one line on stderr', async () => {
    const game = play(['--bots', 'bmu,nope']);
    expect(await game.exited).to.equal(2);
    expect(game.stderr.trim().split('\n')).to.have.length(1);
    expect(game.stderr).to.match(/unknown bot 'nope'; bots: bmu, smithy-bm/);
    expect(game.stdout).to.equal('');
  });

  it('rejects an unknown kingdom, card or edition with exit code 2', async () => {
    const [preset, card, edition] = [play(['--kingdom', 'Nope Game']), play(['--kingdom', 'Village,Smithy,Nope']), play(['--edition', '3e'])];
    expect(await Promise.all([preset.exited, card.exited, edition.exited])).to.deep.equal([2, 2, 2]);
    expect(preset.stderr).to.match(/^error: invalid --kingdom: Unknown kingdom preset: Nope Game\. Known presets: First Game, /);
    expect(card.stderr).to.match(/^error: invalid --kingdom: Unknown card: Nope\n$/);
    expect(edition.stderr).to.equal("error: unknown edition '3e'; editions: 2e, 1e, mixed\n");
  });

  it('rejects --api-url without a key with exit code 2', async () => {
    const game = play(['--api-url', 'http://127.0.0.1:9']);
    expect(await game.exited).to.equal(2);
    expect(game.stderr).to.include('--api-url needs an API key');
  });

  describe('against a gateway (--api-url)', () => {
    let server: Server;
    let url: string;
    const requests: Array<{ method: string; path: string; authorization?: string; body: unknown }> = [];
    const games = new Map<string, GameSession>();

    before(async () => {
      server = createServer((req, res) => void fakeGateway(req, res, games, requests));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('creates the game with the key, shows the same views and errors, and quit leaves it running', async () => {
      const game = play(['--seed', '7', '--bots', 'bmu', '--api-url', url], { TROUPE_API_KEY: 'test-key' });
      const first = (await game.next())!;
      expect(first).to.include('game remote-1');
      expect(first).to.include(`Events: ${url}/games/remote-1/events`);
      const options = optionsIn(first);
      expect(options.map((o) => o.description)).to.include('Play all Treasures (+$5)');
      game.send('99');
      const refused = (await game.next())!;
      expect(refused).to.match(new RegExp(`^Error: Invalid selection: 99\\. Valid range is 1-${options.length}\\.$`, 'm'));
      expect(optionsIn(refused)).to.deep.equal(options);
      game.send('1, 2');
      expect(await game.next()).to.match(/^ {2}Player 1 bought \w+/m);
      game.send('quit');
      expect(await game.next()).to.equal(null);
      expect(await game.exited).to.equal(0);
      expect(game.rest()).to.include(`Left game remote-1; it is still running on ${url}`);
      expect(games.get('remote-1')!.status).to.equal('playing');
      expect(requests[0]).to.deep.include({ method: 'POST', path: '/games', authorization: 'Bearer test-key' });
      expect(requests[0]!.body).to.deep.equal({ seats: [{ type: 'me' }, { type: 'bot', bot: 'bmu' }], seed: 7 });
      expect(requests.filter((r) => r.path === '/games/remote-1/moves').map((r) => r.body)).to.deep.equal([{ move: '99' }, { move: '1, 2' }]);
    });

    it('goes back to a game left with quit (--game), and refuses --game without a gateway or with new-game flags', async () => {
      const first = play(['--seed', '7', '--bots', 'bmu', '--api-url', url], { TROUPE_API_KEY: 'test-key' });
      const opening = (await first.next())!;
      const gameId = /game (remote-\d+)/.exec(opening)![1]!;
      first.send('quit');
      expect(await first.exited).to.equal(0);
      const again = play(['--api-url', url, '--game', gameId], { TROUPE_API_KEY: 'test-key' });
      const back = (await again.next())!;
      expect(back).to.include(`Dominion — game ${gameId} (${url})`);
      expect(back).to.match(/== Round \d+ · your turn/);
      expect(optionsIn(back).length).to.be.greaterThan(0);
      again.send('quit');
      expect(await again.exited).to.equal(0);
      expect(requests.filter((r) => r.method === 'POST' && r.path === '/games')).to.have.length(2);
      const local = play(['--game', gameId]);
      expect(await local.exited).to.equal(2);
      expect(local.stderr).to.include('--game needs --api-url');
      const mixed = play(['--api-url', url, '--game', gameId, '--seed', '3'], { TROUPE_API_KEY: 'test-key' });
      expect(await mixed.exited).to.equal(2);
      expect(mixed.stderr).to.include('only apply to a new one');
    });

    it('exits 1 with a clear line when the gateway refuses the key', async () => {
      const game = play(['--seed', '7', '--api-url', url, '--api-key', 'wrong']);
      expect(await game.exited).to.equal(1);
      expect(game.stderr).to.match(/^troupe: the gateway refused the API key \(HTTP 401\)/);
    });
  });
});

/** The game routes of the gateway, on the same session functions, for one user holding "test-key". */
async function fakeGateway(req: IncomingMessage, res: ServerResponse, games: Map<string, GameSession>, requests: Array<{ method: string; path: string; authorization?: string; body: unknown }>) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body: unknown = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const { pathname, searchParams } = new URL(req.url!, 'http://gateway');
  requests.push({ method: req.method!, path: pathname, authorization: req.headers.authorization, body });
  const reply = (status: number, json: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  };
  if (req.headers.authorization !== 'Bearer test-key') return reply(401, { error: { code: 'unauthorized', message: 'invalid API key', details: {} } });
  const userId = 'tester';
  try {
    if (req.method === 'POST' && pathname === '/games') {
      const input = body as { seats: Array<{ type: 'me' } | { type: 'bot'; bot: string }>; kingdom?: string; seed: number };
      const gameId = `remote-${games.size + 1}`;
      const { session, events } = createSession({ gameId, host: { userId, name: 'tester' }, seats: input.seats, kingdom: input.kingdom, seed: input.seed, now: Date.now() });
      games.set(gameId, session);
      return reply(200, viewFor(session, userId, { message: 'created', events }));
    }
    const match = /^\/games\/([^/]+)(\/moves|\/resign)?$/.exec(pathname);
    const session = match ? games.get(match[1]!) : undefined;
    if (!match || !session) return reply(404, { error: { code: 'not_found', message: 'no such game', details: {} } });
    if (req.method === 'GET' && !match[2]) return reply(200, viewFor(session, userId, { message: '', detail: (searchParams.get('detail') ?? 'standard') as ObserveDetail }));
    if (req.method === 'POST' && match[2] === '/moves') {
      const { events } = executeMove(session, userId, (body as { move: string }).move);
      return reply(200, viewFor(session, userId, { message: 'moved', events }));
    }
    if (req.method === 'POST' && match[2] === '/resign') return reply(200, viewFor(session, userId, { message: 'resigned', events: resign(session, userId) }));
    return reply(404, { error: { code: 'not_found', message: 'no such route', details: {} } });
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    const status = { bad_request: 400, forbidden: 403, conflict: 409, not_found: 404 }[error.code];
    return reply(status, { error: { code: error.code, message: error.message, details: error.details } });
  }
}
