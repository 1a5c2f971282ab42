/**
 * The browser tests' fixture: one real `troupe start` on loopback (offline LLM, MTG dataset seeded,
 * its own REDIS_PREFIX) and Debian's chromium driven by playwright-core. Flows (test/browser/flows/)
 * share it: a troupe start costs seconds, a browser context milliseconds.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-relay.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, runTroupe, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

/** Debian's chromium (`apt-get install chromium`); CHROMIUM_PATH overrides. Never a downloaded build. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const RESULTS_DIR = join(process.cwd(), 'test-results');

export interface WebTroupe {
  base: string;
  env: NodeJS.ProcessEnv;
  browser: Browser;
  /** The login link `troupe start` printed for its local user (single use). */
  startLoginLink: string;
  /** A new user's API key, made as `troupe users create` makes one (`admin`: with the admin role). */
  createUser(name: string, options?: { admin?: boolean }): Promise<string>;
  /** A fresh single-use login link (`troupe login-link NAME`). */
  loginLink(name: string): Promise<string>;
  /** A browser context already signed in with `apiKey` (kept in sessionStorage, as the sign-in form does). */
  signedInContext(apiKey: string, options?: { width?: number; height?: number }): Promise<BrowserContext>;
  /** A page of a signed-in context opened at `hash` (e.g. `#/dominion`). */
  openView(apiKey: string, hash: string, options?: { width?: number; height?: number }): Promise<Page>;
  /**
   * The same troupe behind a TCP proxy the test controls: pages opened at `proxyBase` lose every
   * connection on `dropConnections()` (a real network drop, mid-stream), then reconnect through it.
   */
  proxyBase: string;
  dropConnections(): number;
  /** The public API as the tests' own client, for checking what the browser shows. */
  api<T>(apiKey: string, path: string, init?: { method?: string; body?: unknown }): Promise<T>;
}

/** Saves `test-results/<name>.png` (full page). */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

let axeSource: string | undefined;

/**
 * axe-core on the page as it is now: no serious or critical violation. Injected through the DevTools
 * protocol, so the page's strict CSP (no inline script) stays on.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 3).join(', ')}`);
  });
  expect(violations, `axe on ${what}`).to.deep.equal([]);
}

/** Registers before/after hooks in the calling describe; the returned getter works inside tests. */
export function useWebTroupe(): () => WebTroupe {
  let web: WebTroupe | undefined;
  const processes: TroupeProcess[] = [];
  const redisPrefix = `troupe-web-${randomUUID().slice(0, 8)}`;
  let browser: Browser | undefined;
  let proxy: TcpRelay | undefined;

  before(async function () {
    this.timeout(240_000);
    if (!existsSync(CHROMIUM_PATH)) throw new Error(`no chromium at ${CHROMIUM_PATH}: apt-get install chromium (or set CHROMIUM_PATH)`);
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    const env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_PRETTY: 'false',
      LLM_PROVIDER: 'offline',
      LARGE_LANGUAGE_MODEL: '',
      EMBEDDINGS_PROVIDER: '',
      COACH_MCP_URL: '',
      COACH_MCP_HEADER: '',
      GATEWAY_URL: '',
      MAIL_TRANSPORT: 'local',
      SMTP_PORT: '',
    });
    const base = `http://127.0.0.1:${port}`;
    const [, launched] = await Promise.all([
      (async () => {
        await startSeededMongo(mongoPort, env, processes);
        const troupe = spawnTroupe(['start'], env);
        processes.push(troupe);
        await pollUntil(
          async () => {
            if (troupe.exitStatus()) throw new Error(`troupe start exited: ${troupe.stderr()}`);
            return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200 && /\?login=[A-Za-z0-9_-]{43}/.test(troupe.stdout());
          },
          { timeoutMs: 180_000, what: `${base}/readyz and the login link` },
        );
        return troupe;
      })(),
      chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
    ]);
    browser = launched;
    const troupe = processes.at(-1)!;
    const startLoginLink = new RegExp(`${base}/\\?login=[A-Za-z0-9_-]{43}`).exec(troupe.stdout())![0];

    const api = async <T>(apiKey: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
      const response = await fetch(`${base}${path}`, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { authorization: `Bearer ${apiKey}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };

    const signedInContext = async (apiKey: string, options: { width?: number; height?: number } = {}) => {
      const context = await launched.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 } });
      await context.addInitScript((key: string) => {
        if (!sessionStorage.getItem('troupe.apiKey') && !localStorage.getItem('troupe.apiKey')) sessionStorage.setItem('troupe.apiKey', key);
      }, apiKey);
      return context;
    };

    proxy = await startTcpRelay('127.0.0.1', port);
    const proxyPort = proxy.port;

    web = {
      base,
      proxyBase: `http://127.0.0.1:${proxyPort}`,
      dropConnections: () => proxy!.dropConnections(),
      env,
      browser: launched,
      startLoginLink,
      createUser: (name, options = {}) => createUserKey(name, env, options),
      async loginLink(name) {
        const printed = await runTroupe(['login-link', name], env, processes, 30_000);
        const link = /http:\/\/\S+\?login=[A-Za-z0-9_-]{43}/.exec(printed.stdout)?.[0];
        expect(link, printed.stdout + printed.stderr).to.be.a('string');
        return link!.replace(/^http:\/\/[^/]+/, base);
      },
      signedInContext,
      async openView(apiKey, hash, options) {
        const context = await signedInContext(apiKey, options);
        const page = await context.newPage();
        await page.goto(`${base}/${hash}`);
        return page;
      },
      api,
    };
  });

  after(async function () {
    this.timeout(60_000);
    await browser?.close().catch(() => undefined);
    await proxy?.close();
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  return () => {
    if (!web) throw new Error('the web troupe is not started (useWebTroupe registers a before hook)');
    return web;
  };
}
