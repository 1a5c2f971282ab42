/**
 * The Dominion view: a whole game against a bot played by clicking only, two browsers seated in one
 * game seeing each other's moves live, an SSE drop that resumes without losing or repeating a log line,
 * number keys picking options, and the lobby and board at 390 px.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

interface GameView {
  gameId: string;
  status: string;
  yourSeat: number | null;
  toMove: number | null;
  gameOver: boolean;
  result: { scores: number[]; winners: number[]; summary: string | null } | null;
  options: Array<{ index: number; description: string; command: string }>;
}

const board = (page: Page) => page.getByTestId('dominion-board');

async function boardNumber(page: Page, attribute: string): Promise<number> {
  return Number(await board(page).getAttribute(attribute));
}

/** Log lines as the page shows them. */
async function shownLog(page: Page): Promise<string[]> {
  return page.getByTestId('log-line').allTextContents();
}

/**
 * Waits until the log's last line is `expected` (or matches it) and returns it. A move's answer and
 * the game feed's entry for it travel separately, so the board may show the answer a moment before
 * the log line arrives.
 */
async function lastLogLine(page: Page, expected: RegExp | string): Promise<string> {
  const want = typeof expected === 'string' ? { exact: expected } : { source: expected.source };
  await page.waitForFunction(
    (w) => {
      const lines = document.querySelectorAll('[data-testid="log-line"]');
      const last = lines[lines.length - 1]?.textContent ?? '';
      return w.exact !== undefined ? last === w.exact : new RegExp(w.source!).test(last);
    },
    want,
    { timeout: 30_000 },
  );
  return (await shownLog(page)).at(-1)!;
}

/** Waits until the board has applied a change after `version` and is not sending a move. */
async function settledAfter(page: Page, version: number): Promise<void> {
  await page.waitForFunction(
    (before) => {
      const root = document.querySelector<HTMLElement>('[data-testid="dominion-board"]');
      return root !== null && Number(root.dataset.version) > before && root.dataset.busy === 'false';
    },
    version,
    { timeout: 30_000 },
  );
}

/** Clicks the option whose command is `command` and waits for the board to show what it did. */
async function clickOption(page: Page, command: string): Promise<void> {
  const version = await boardNumber(page, 'data-version');
  await page.locator(`[data-testid="option"][data-command="${command}"]`).click();
  await settledAfter(page, version);
}

async function optionCommands(page: Page): Promise<string[]> {
  return page.getByTestId('option').evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.command ?? ''));
}

/**
 * The game's public log as the server publishes it: the feed read from its start with the test's own
 * client, up to the update that brought the game to `moves` moves (GET /games says how many).
 */
async function serverLog(web: WebTroupe, apiKey: string, gameId: string): Promise<string[]> {
  const { games } = await web.api<{ games: Array<{ gameId: string; moves: number }> }>(apiKey, '/games');
  const moves = games.find((g) => g.gameId === gameId)!.moves;
  const abort = new AbortController();
  const response = await fetch(`${web.base}/games/${gameId}/events`, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream', 'last-event-id': '0-0' },
    signal: abort.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const lines: string[] = [];
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return lines;
      buffered += value;
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (event === 'update') {
          const update = JSON.parse(data) as { moves: number; events: string[] };
          lines.push(...update.events);
          if (update.moves >= moves) return lines;
        }
        if (event === 'done') return lines;
      }
    }
  } finally {
    abort.abort();
  }
}

/** What a simple Big Money player clicks, after buying one Cellar to use the card choice. */
function nextCommand(commands: string[], ownsCellar: boolean): string {
  const wanted = ['play_action Cellar', 'play_all_treasures', 'buy Province', 'buy Gold', ownsCellar ? 'buy Silver' : 'buy Cellar', 'buy Silver', 'end_turn'];
  return wanted.find((c) => commands.includes(c)) ?? commands[0];
}

export function dominionFlows(web: () => WebTroupe): void {
  describe('Dominion view', function () {
    it('plays a whole game against a bot by clicking only, from the lobby to the final scores', async function () {
      this.timeout(600_000);
      const key = await web().createUser('dominion-solo');
      const page = await web().openView(key, '#/dominion');
      try {
        await page.getByRole('heading', { name: 'Start a game' }).waitFor();
        await page.getByLabel('Seat 2').selectOption('bot:bmu');
        await page.getByLabel('Seed (optional)').fill('20251');
        await screenshot(page, 'dominion-lobby');
        await expectAccessible(page, 'the Dominion lobby');
        await page.getByRole('button', { name: 'Start game' }).click();
        await page.locator('[data-testid="dominion-board"][data-status="playing"]').waitFor();
        await page.locator('[data-stream-status="open"]').waitFor();
        const gameId = (await board(page).getAttribute('data-game-id'))!;

        let ownsCellar = false;
        let choseCards = 0;
        let midGameShot = false;
        for (let step = 0; step < 2_000; step++) {
          await page.waitForFunction(() => {
            const root = document.querySelector<HTMLElement>('[data-testid="dominion-board"]');
            return root?.dataset.busy === 'false' && (root.dataset.status !== 'playing' || root.dataset.yourMove === 'true');
          });
          if ((await board(page).getAttribute('data-status')) !== 'playing') break;
          if (!midGameShot && (await boardNumber(page, 'data-turn')) >= 8) {
            midGameShot = true;
            await screenshot(page, 'dominion-board-mid-game');
            await expectAccessible(page, 'the Dominion board mid-game');
            // Costs printed on the Supply come from the rules' card table the API serves.
            const { cards } = await web().api<{ cards: Array<{ name: string; cost: number }> }>(key, '/dominion/cards');
            for (const name of ['Copper', 'Silver', 'Gold', 'Province', 'Cellar']) {
              const printed = await page.locator(`[data-pile="${name}"] .card-cost`).first().textContent();
              expect(printed, name).to.equal(`$${cards.find((c) => c.name === name)!.cost}`);
            }
          }
          // Cellar asks for several cards: pick the Victory cards on the selectable hand, then submit.
          if ((await page.getByTestId('card-choice').count()) > 0) {
            for (const card of await page.getByTestId('choice-card').all()) {
              if (['Estate', 'Duchy', 'Province', 'Curse'].includes((await card.getAttribute('data-card'))!)) await card.click();
            }
            if (choseCards === 0) await screenshot(page, 'dominion-card-choice');
            const version = await boardNumber(page, 'data-version');
            await page.getByTestId('submit-choice').click();
            await settledAfter(page, version);
            choseCards += 1;
            continue;
          }
          const command = nextCommand(await optionCommands(page), ownsCellar);
          if (command === 'buy Cellar') ownsCellar = true;
          await clickOption(page, command);
        }

        await page.getByTestId('scores').waitFor();
        const final = await web().api<GameView>(key, `/games/${gameId}`);
        expect(final.gameOver).to.equal(true);
        expect(choseCards, 'Cellar choices made on the selectable hand').to.be.greaterThan(0);
        const shownScores = await page.getByTestId('scores').locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.score)));
        expect(shownScores).to.deep.equal(final.result!.scores);
        expect(await page.getByTestId('scores').textContent()).to.include(final.result!.summary!);
        // The feed ends with the game: every update has arrived once it is closed.
        await page.locator('[data-stream-status="closed"]').waitFor();
        expect(await shownLog(page)).to.deep.equal(await serverLog(web(), key, gameId));
        await screenshot(page, 'dominion-final-scores');
        await expectAccessible(page, 'the Dominion final scores');
      } finally {
        await page.context().close();
      }
    });

    it('seats two browsers in one game (open seat, joined by id in the lobby); each sees the other move live', async function () {
      this.timeout(180_000);
      const [hostKey, guestKey] = await Promise.all([web().createUser('dominion-host'), web().createUser('dominion-guest')]);
      const host = await web().openView(hostKey, '#/dominion');
      const guest = await web().openView(guestKey, '#/dominion');
      try {
        await host.getByLabel('Seat 2').selectOption('open');
        await host.getByLabel('Seed (optional)').fill('7');
        await host.getByRole('button', { name: 'Start game' }).click();
        await host.getByTestId('waiting').waitFor();
        await host.locator('[data-stream-status="open"]').waitFor();
        const gameId = (await host.getByTestId('share-id').textContent())!;
        await screenshot(host, 'dominion-waiting-for-player');
        await expectAccessible(host, 'the Dominion board waiting for a player');

        // The guest's lobby lists the waiting game; they join with its id.
        await guest.getByRole('button', { name: 'Refresh' }).click();
        await guest.locator(`tr[data-game-id="${gameId}"]`).getByRole('button', { name: `Join game ${gameId}` }).waitFor();
        await guest.getByLabel('Game id').fill(gameId);
        await guest.getByRole('button', { name: 'Join', exact: true }).click();
        await guest.locator(`[data-testid="dominion-board"][data-game-id="${gameId}"][data-status="playing"]`).waitFor();
        // The host's board starts without a reload.
        await host.locator('[data-testid="dominion-board"][data-status="playing"]').waitFor();
        await guest.locator('[data-stream-status="open"]').waitFor();

        const pages = [host, guest];
        const view = await web().api<GameView>(hostKey, `/games/${gameId}`);
        let mover = view.toMove === view.yourSeat ? 0 : 1;
        for (let turn = 0; turn < 2; turn++) {
          const moving = pages[mover];
          const watching = pages[1 - mover];
          const player = `Player ${(await web().api<GameView>(mover === 0 ? hostKey : guestKey, `/games/${gameId}`)).yourSeat! + 1}`;
          await moving.locator('[data-testid="dominion-board"][data-your-move="true"]').waitFor();
          await clickOption(moving, 'play_all_treasures');
          await watching.getByTestId('log-line').filter({ hasText: `${player} played` }).first().waitFor();
          await clickOption(moving, 'end_turn');
          // The watcher's board hands them the turn, live.
          await watching.locator('[data-testid="dominion-board"][data-your-move="true"]').waitFor();
          const length = await boardNumber(watching, 'data-log-length');
          await moving.locator(`[data-testid="dominion-board"][data-log-length="${length}"]`).waitFor();
          expect(await shownLog(watching)).to.deep.equal(await shownLog(moving));
          mover = 1 - mover;
        }
        await screenshot(host, 'dominion-two-players-host');
        await screenshot(guest, 'dominion-two-players-guest');
        await expectAccessible(guest, 'the Dominion board of the joined player');
        expect(await shownLog(host)).to.deep.equal(await serverLog(web(), hostKey, gameId));
      } finally {
        await host.context().close();
        await guest.context().close();
      }
    });

    it('resumes the game feed after a dropped connection without losing or repeating a log line', async function () {
      this.timeout(180_000);
      const [hostKey, guestKey] = await Promise.all([web().createUser('dominion-dropped'), web().createUser('dominion-other')]);
      const created = await web().api<GameView>(hostKey, '/games', { body: { seats: ['me', 'open'], seed: 99 } });
      const gameId = created.gameId;
      await web().api(guestKey, `/games/${gameId}/join`, { method: 'POST' });
      const hostSeat = created.yourSeat!;
      // The host's moves first, if the host starts: the guest then moves while the host is cut off.
      if ((await web().api<GameView>(hostKey, `/games/${gameId}`)).toMove === hostSeat) {
        await web().api(hostKey, `/games/${gameId}/moves`, { body: { move: 'play_all_treasures' } });
        await web().api(hostKey, `/games/${gameId}/moves`, { body: { move: 'end_turn' } });
      }

      const context = await web().signedInContext(hostKey);
      try {
        const page = await context.newPage();
        await page.goto(`${web().proxyBase}/#/dominion/${gameId}`);
        await page.locator('[data-stream-status="open"]').waitFor();
        const before = await serverLog(web(), hostKey, gameId);
        await page.locator(`[data-testid="dominion-board"][data-log-length="${before.length}"]`).waitFor();

        expect(web().dropConnections()).to.be.greaterThan(0);
        await page.locator('[data-stream-status="reconnecting"]').waitFor();
        await screenshot(page, 'dominion-reconnecting');
        await web().api(guestKey, `/games/${gameId}/moves`, { body: { move: 'play_all_treasures' } });
        await web().api(guestKey, `/games/${gameId}/moves`, { body: { move: 'end_turn' } });

        await page.locator('[data-stream-status="open"]').waitFor();
        const after = await serverLog(web(), hostKey, gameId);
        expect(after.length).to.be.greaterThan(before.length);
        await page.locator(`[data-testid="dominion-board"][data-log-length="${after.length}"]`).waitFor();
        expect(await shownLog(page)).to.deep.equal(after);
        // The board itself caught up too: it is the host's move again.
        await page.locator('[data-testid="dominion-board"][data-your-move="true"]').waitFor();
        await screenshot(page, 'dominion-resumed');
      } finally {
        await context.close();
      }
    });

    it('picks options with number keys (one or two digits), but not while typing in a field; works at 390 px', async function () {
      this.timeout(120_000);
      const key = await web().createUser('dominion-keys');
      const created = await web().api<GameView>(key, '/games', { body: { seats: ['me', 'bot:big-money'], seed: 4242 } });
      const context = await web().signedInContext(key, { width: 390, height: 844 });
      try {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/dominion/${created.gameId}`);
        await page.locator('[data-testid="dominion-board"][data-your-move="true"]').waitFor();
        await page.locator('[data-stream-status="open"]').waitFor();
        await screenshot(page, 'dominion-board-390px');
        await expectAccessible(page, 'the Dominion board at 390 px');

        const log = () => shownLog(page);
        const playAll = created.options.find((o) => o.command === 'play_all_treasures')!;
        let version = await boardNumber(page, 'data-version');
        await page.keyboard.press(String(playAll.index));
        await settledAfter(page, version);
        expect(await lastLogLine(page, /^Player \d played /)).to.match(/^Player \d played /);

        // Digits typed into the move field stay there: "13" would otherwise end the turn.
        const commands = await optionCommands(page);
        expect(commands.length).to.be.greaterThan(9);
        await page.getByLabel('Or type a move').fill('');
        await page.getByLabel('Or type a move').pressSequentially(String(commands.indexOf('end_turn') + 1));
        expect(await page.getByLabel('Or type a move').inputValue()).to.equal(String(commands.indexOf('end_turn') + 1));
        await page.getByLabel('Or type a move').fill('');
        await page.getByRole('heading', { name: 'Your options' }).click();

        // Two digits in a row pick a two-digit option: option 10 is a buy.
        const tenth = commands[9];
        expect(tenth).to.match(/^buy /);
        version = await boardNumber(page, 'data-version');
        await page.keyboard.press('1');
        await page.keyboard.press('0');
        await settledAfter(page, version);
        const bought = `Player ${created.yourSeat! + 1} bought ${tenth.slice(4)}`;
        expect(await lastLogLine(page, bought)).to.equal(bought);
        expect(await optionCommands(page)).to.deep.equal(['end_turn']);

        // A typed move the game refuses shows the API's message, and the game is unchanged. "1" pressed
        // the moment that answer is on screen (from a DOM observer, before the page's effects have run)
        // still picks from the options shown: it ends the turn, the bot plays its turn, and it is this
        // player's move again, two turns on.
        const turn = await boardNumber(page, 'data-turn');
        await page.evaluate(() => {
          const observer = new MutationObserver(() => {
            const alert = document.querySelector('[role="alert"]');
            if (!alert) return;
            observer.disconnect();
            document.body.dataset.refusal = alert.textContent ?? '';
            dispatchEvent(new KeyboardEvent('keydown', { key: '1', bubbles: true }));
          });
          observer.observe(document.body, { childList: true, subtree: true });
        });
        await page.getByLabel('Or type a move').fill('buy Province');
        await page.getByRole('button', { name: 'Send' }).click();
        await page.locator(`[data-testid="dominion-board"][data-turn="${turn + 2}"][data-your-move="true"]`).waitFor();
        expect(await page.locator('body').getAttribute('data-refusal')).to.match(/\w/).and.not.include('[object Object]');
        // The bot's turn reaches the log through the feed, which may come a moment after the answer.
        await page.getByTestId('log-line').filter({ hasText: new RegExp(`^Turn ${turn + 1}: `) }).first().waitFor();
        expect((await log()).filter((line) => line.startsWith(`Turn ${turn + 1}: `))).to.have.length(1);
        await screenshot(page, 'dominion-keys-390px');
      } finally {
        await context.close();
      }
    });

    it('shows the lobby at 390 px with your games linked to their boards', async function () {
      const key = await web().createUser('dominion-phone');
      const created = await web().api<GameView>(key, '/games', { body: { seats: ['me', 'bot:witch'] } });
      const page = await web().openView(key, '#/dominion', { width: 390, height: 844 });
      try {
        const link = page.getByTestId('game-list').getByRole('link', { name: created.gameId });
        await link.waitFor();
        await screenshot(page, 'dominion-lobby-390px');
        await expectAccessible(page, 'the Dominion lobby at 390 px');
        await link.click();
        await page.locator(`[data-testid="dominion-board"][data-game-id="${created.gameId}"]`).waitFor();

        // Someone else's waiting game, opened by its link: the board offers the open seat.
        const hostKey = await web().createUser('dominion-phone-host');
        const waiting = await web().api<GameView>(hostKey, '/games', { body: { seats: ['me', 'open'] } });
        await page.goto(`${web().base}/#/dominion/${waiting.gameId}`);
        await page.getByTestId('waiting').waitFor();
        await page.getByRole('button', { name: 'Join this game' }).click();
        await page.locator(`[data-testid="dominion-board"][data-game-id="${waiting.gameId}"][data-status="playing"]`).waitFor();
        expect((await web().api<GameView>(key, `/games/${waiting.gameId}`)).yourSeat).to.equal(1);

        // An unknown game shows the API's message.
        await page.goto(`${web().base}/#/dominion/g-000000000000`);
        await page.getByRole('alert').waitFor();
        expect(await page.getByRole('alert').textContent()).to.include('g-000000000000').and.not.include('[object Object]');
      } finally {
        await page.context().close();
      }
    });
  });
}
