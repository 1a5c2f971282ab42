/**
 * `npm run bench:web`: the web client as a person meets it, in headless Debian chromium on loopback
 * against a troupe started as an operator would (`troupe mongo`, `worker`, `gateway`):
 * - bundle size, gzipped: what the first page loads (the shell) plus the Dominion view's chunks;
 * - time to interactive: a cold load of `/#/dominion` until the lobby's buttons work, beside a
 *   baseline measured in the same run (a page with no script: the gateway's JSON /healthz);
 * - click to board: from a click on a Dominion option to the board re-rendered from the game's SSE
 *   feed, over whole games against a bot.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Logger } from '../../logging/logger.js';
import { ensureWebBuild, readWebManifest, type WebBuildManifest } from '../web-build.js';
import { latencySummary, startBenchTroupe } from './troupe-processes.js';

export interface WebBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Cold page loads to time (default 10). */
  loads?: number;
  /** Option clicks to time (default 120). */
  clicks?: number;
}

const BUNDLE_BOUND_KB = 150;
const TTI_BOUND_MS = 1000;
const CLICK_P95_BOUND_MS = 100;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

/** Gzipped bytes of `scripts` and everything they import at once (not on demand). */
function closureGzipBytes(manifest: WebBuildManifest, roots: string[]): { bytes: number; files: string[] } {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const next of manifest.scripts[name]?.imports ?? []) visit(next);
  };
  roots.forEach(visit);
  const gzipOf = (name: string) => manifest.files.find((f) => f.path === `assets/${name}`)?.gzipBytes ?? 0;
  return { bytes: [...seen].reduce((sum, name) => sum + gzipOf(name), 0), files: [...seen] };
}

function bundleSizes(manifest: WebBuildManifest) {
  const shell = closureGzipBytes(manifest, [manifest.entry]);
  const dominionChunk = Object.entries(manifest.scripts).find(([, s]) => s.inputs.some((i) => i.endsWith('views/dominion/dominion-view.tsx')))?.[0];
  if (!dominionChunk) throw new Error('bench:web: no chunk holds the Dominion view');
  const withDominion = closureGzipBytes(manifest, [manifest.entry, dominionChunk]);
  const css = manifest.files.find((f) => f.path === `assets/${manifest.stylesheet}`)?.gzipBytes ?? 0;
  const allScripts = manifest.files.filter((f) => f.path.endsWith('.js')).reduce((sum, f) => sum + f.gzipBytes, 0);
  return {
    shell_kb: kb(shell.bytes + css),
    shell_and_dominion_kb: kb(withDominion.bytes + css),
    every_view_kb: kb(allScripts + css),
    files: withDominion.files.length + 1,
  };
}

/** A fresh context (cold cache) signed in as the API does it: the key in sessionStorage. */
async function signedInPage(browser: Browser, key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((apiKey: string) => sessionStorage.setItem('troupe.apiKey', apiKey), key);
  return context.newPage();
}

async function timeToInteractive(browser: Browser, base: string, key: string, loads: number) {
  const app: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < loads; i++) {
    const page = await signedInPage(browser, key);
    await page.goto(`${base}/#/dominion`);
    // Interactive: the lobby's controls are rendered and enabled (the view's chunk ran, /me and /games answered).
    await page.waitForSelector('[data-testid="dominion-lobby"] button:not([disabled])');
    app.push(await page.evaluate(() => performance.now()));
    await page.goto(`${base}/healthz`);
    await page.waitForLoadState('load');
    baseline.push(await page.evaluate(() => performance.timing.loadEventEnd - performance.timing.navigationStart));
    await page.context().close();
  }
  return { app: latencySummary(app, [50, 95]), baseline_no_script_page: latencySummary(baseline, [50, 95]) };
}

/** Money strategy over the option buttons' text, as bench:game plays. */
const PREFERRED = ['Play all Treasures', 'Buy Province', 'Buy Gold', 'Buy Silver', 'End turn'];

async function clickToBoard(page: Page, base: string, key: string, clicks: number, logger: Logger): Promise<number[]> {
  const samples: number[] = [];
  let games = 0;
  while (samples.length < clicks) {
    const created = await fetch(`${base}/games`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seats: ['me', 'bot:bmu'], seed: 2000 + games }),
    });
    if (!created.ok) throw new Error(`POST /games: ${created.status} ${await created.text()}`);
    const { gameId } = (await created.json()) as { gameId: string };
    games += 1;
    await page.goto(`${base}/#/dominion/${encodeURIComponent(gameId)}`);
    await page.waitForSelector('[data-testid="dominion-board"]');
    for (;;) {
      // Our move and the board idle (a click while it applies the last move would do nothing).
      await page.waitForFunction(() => {
        const root = document.querySelector<HTMLElement>('[data-testid="dominion-board"]');
        return root?.dataset.busy === 'false' && (root.dataset.status !== 'playing' || root.dataset.yourMove === 'true');
      });
      if ((await page.getAttribute('[data-testid="dominion-board"]', 'data-status')) !== 'playing') break;
      const elapsed = await page.evaluate(async (preferred: string[]) => {
        const board = document.querySelector('[data-testid="dominion-board"]')!;
        const buttons = [...document.querySelectorAll<HTMLButtonElement>('[data-testid="option"]')];
        const pick = preferred.map((text) => buttons.find((b) => b.textContent?.includes(text))).find(Boolean) ?? buttons[0]!;
        // data-version goes up each time the board applies a change (the move's answer or a feed event).
        const before = board.getAttribute('data-version');
        return new Promise<number>((resolve, reject) => {
          const giveUp = setTimeout(() => reject(new Error(`the board did not change within 15 s of clicking "${pick.textContent}"`)), 15_000);
          const observer = new MutationObserver(() => {
            if (board.getAttribute('data-version') === before) return;
            observer.disconnect();
            clearTimeout(giveUp);
            // The frame after the DOM change: the board is on screen, not only in the tree.
            requestAnimationFrame(() => resolve(performance.now() - started));
          });
          observer.observe(board, { attributes: true, attributeFilter: ['data-version'] });
          const started = performance.now();
          pick.click();
        });
      }, PREFERRED);
      samples.push(elapsed);
      if (samples.length >= clicks) break;
    }
    logger.info({ games, samples: samples.length }, 'bench:web game done');
  }
  return samples;
}

export async function runWebBench({ redisUrl, logger, loads = 10, clicks = 120 }: WebBenchOptions) {
  const build = await ensureWebBuild((line) => logger.info(line));
  if (!build.dir) throw new Error('bench:web: the web client is not built and its sources are missing');
  const bundle = bundleSizes(await readWebManifest(build.dir));
  const bench = await startBenchTroupe({ redisUrl, name: 'web', kindLimits: 'game:rate=100000000/60,concurrent=100000;game-lobby:rate=100000000/60,concurrent=100000' });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const tti = await timeToInteractive(browser, bench.base, bench.key, loads);
    const page = await signedInPage(browser, bench.key);
    const clickSamples = await clickToBoard(page, bench.base, bench.key, clicks, logger);
    const click = latencySummary(clickSamples, [50, 95, 99]);
    return {
      node: process.version,
      browser: `chromium ${browser.version()} (headless, Debian)`,
      setup: 'troupe mongo (embedded, memory) + 1 troupe worker + 1 troupe gateway on loopback; the built web client (dist/web)',
      bundle_gzip: { ...bundle, target_shell_and_dominion_under_kb: BUNDLE_BOUND_KB },
      time_to_interactive_ms: { loads, ...tti, what: 'cold load of /#/dominion until the lobby buttons are enabled (performance.now() in the page)' },
      click_to_board_ms: { clicks: clickSamples.length, ...click, what: 'click on an option → move POSTed → the board re-rendered from its answer or the game feed, whichever comes first (next frame)' },
      acceptance: {
        bundle_under_150kb: bundle.shell_and_dominion_kb < BUNDLE_BOUND_KB,
        tti_p50_under_1s: tti.app.p50_ms < TTI_BOUND_MS,
        click_p95_under_100ms: click.p95_ms < CLICK_P95_BOUND_MS,
      },
    };
  } finally {
    await browser.close();
    await bench.stop();
  }
}
