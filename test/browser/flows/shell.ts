/**
 * The shell: serving (hashed, precompressed, CSP), signing in by link and by key, remember-me,
 * sign-out, the account view (keys and usage), and a revoked key falling back to the sign-in form.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

const KEY = /trp_[A-Za-z0-9_-]{20,}/;

async function storedKey(page: Page): Promise<{ session: string | null; local: string | null }> {
  return page.evaluate(() => ({ session: sessionStorage.getItem('troupe.apiKey'), local: localStorage.getItem('troupe.apiKey') }));
}

export function shellFlows(web: () => WebTroupe): void {
  describe('Shell and account view', function () {
    it('serves the page with the strict CSP, never cached, and hashed assets cached for a year, precompressed', async function () {
      const page = await fetch(`${web().base}/`);
      expect(page.status).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.get('content-security-policy')).to.include("script-src 'self'").and.include("style-src 'self'").and.not.include('unsafe-inline');
      const html = await page.text();
      const script = /<script type="module" src="(\/assets\/app-[A-Z0-9]+\.js)">/.exec(html)?.[1];
      const stylesheet = /<link rel="stylesheet" href="(\/assets\/app-[A-Z0-9]+\.css)">/.exec(html)?.[1];
      expect(script, html).to.be.a('string');
      expect(stylesheet, html).to.be.a('string');

      const brotli = await fetch(`${web().base}${script}`, { headers: { 'accept-encoding': 'br' } });
      expect(brotli.status).to.equal(200);
      expect(brotli.headers.get('content-encoding')).to.equal('br');
      expect(brotli.headers.get('cache-control')).to.include('max-age=31536000').and.include('immutable');
      expect(brotli.headers.get('content-type')).to.match(/javascript/);
      const gzip = await fetch(`${web().base}${stylesheet}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers.get('content-encoding')).to.equal('gzip');
      expect(gzip.headers.get('content-type')).to.match(/text\/css/);

      expect((await fetch(`${web().base}/assets/missing-AAAA.js`)).status).to.equal(404);
      expect((await fetch(`${web().base}/assets/..%2Fmanifest.json`)).status).to.equal(404);
    });

    it('logs in by link: the key is kept for the tab only, shown once on Account, and the link works once', async function () {
      const context = await web().browser.newContext();
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
        await page.goto(web().startLoginLink);
        await page.getByTestId('user-name').waitFor();
        expect(await page.getByTestId('user-name').textContent()).to.equal('local');
        // The single-use token leaves the address bar at once.
        expect(page.url()).to.not.include('login=');
        const stored = await storedKey(page);
        expect(stored.session).to.match(KEY);
        expect(stored.local).to.equal(null);

        await page.getByRole('link', { name: 'Account' }).click();
        const shown = await page.getByTestId('new-key').textContent();
        expect(shown).to.equal(stored.session);
        await page.getByRole('table', { name: 'Limits and usage per kind' }).locator('tbody tr').first().waitFor();
        await screenshot(page, 'account-after-login-link');
        await expectAccessible(page, 'the account view');

        // The same link again: refused, with the API's reason and how to get a new one.
        const again = await context.newPage();
        await again.goto(web().startLoginLink);
        await again.getByRole('alert').waitFor();
        expect(await again.getByRole('alert').textContent()).to.include('invalid, expired or already used').and.include('troupe login-link');
        await screenshot(again, 'sign-in-link-used');
        await expectAccessible(again, 'the sign-in form');
        expect(errors.filter((e) => !e.includes('401'))).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('signs in with a pasted key and "remember me" (localStorage), refuses a wrong key, and signs out', async function () {
      const key = await web().createUser('web-remember');
      const context = await web().browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/account`);
        await page.getByLabel('API key', { exact: true }).fill('trp_000000000000_notakeyatallnotakeyatall');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('alert').waitFor();
        expect(await page.getByRole('alert').textContent()).to.not.include('[object Object]');
        expect(await storedKey(page)).to.deep.equal({ session: null, local: null });

        await page.getByLabel('API key', { exact: true }).fill(key);
        await page.getByLabel('Remember me on this device').check();
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByTestId('user-name').waitFor();
        expect(await storedKey(page)).to.deep.equal({ session: null, local: key });
        // Remembered: a new tab of the same browser is signed in.
        const second = await context.newPage();
        await second.goto(`${web().base}/#/account`);
        await second.getByTestId('user-name').waitFor();
        expect(await second.getByTestId('user-name').textContent()).to.equal('web-remember');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('API key', { exact: true }).waitFor();
        expect(await storedKey(page)).to.deep.equal({ session: null, local: null });
      } finally {
        await context.close();
      }
    });

    it('creates and revokes keys on Account; a revoked key shows the sign-in form', async function () {
      const key = await web().createUser('web-keys');
      const context = await web().signedInContext(key, { width: 390, height: 844 });
      try {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/account`);
        await page.getByLabel('Label for a new key').fill('laptop');
        await page.getByRole('button', { name: 'Create key' }).click();
        const created = (await page.getByTestId('new-key').textContent())!;
        expect(created).to.match(KEY);
        const keys = await web().api<{ keys: Array<{ prefix: string; label: string; revoked_at: string | null }> }>(created, '/me/keys');
        const laptop = keys.keys.find((k) => k.label === 'laptop')!;
        expect(created.startsWith(laptop.prefix)).to.equal(true);
        await page.locator(`tr[data-key-prefix="${laptop.prefix}"]`).waitFor();
        await screenshot(page, 'account-keys-390px');
        await expectAccessible(page, 'the account view at 390 px');

        // Revoke the new key from the browser: the API then refuses it.
        page.once('dialog', (dialog) => dialog.accept());
        await page.getByRole('button', { name: `Revoke key ${laptop.prefix}` }).click();
        await page.locator(`tr[data-key-prefix="${laptop.prefix}"]`).getByText('revoked').waitFor();
        expect((await fetch(`${web().base}/me`, { headers: { authorization: `Bearer ${created}` } })).status).to.equal(401);

        // The browser's own key revoked elsewhere: its next call gets 401 and the sign-in form shows.
        const prefix = (await web().api<{ keys: Array<{ prefix: string; current: boolean }> }>(key, '/me/keys')).keys.find((k) => k.current)!.prefix;
        await web().api(key, `/me/keys/${prefix}`, { method: 'DELETE' });
        await page.getByRole('button', { name: 'Refresh usage' }).click();
        await page.getByLabel('API key', { exact: true }).waitFor();
        expect(await storedKey(page)).to.deep.equal({ session: null, local: null });
        await screenshot(page, 'sign-in-after-revoked-key');
      } finally {
        await context.close();
      }
    });
    it('opens the queue dashboard for an admin from the header (cookie session, read-only); others have no link', async function () {
      const [adminKey, userKey] = await Promise.all([web().createUser('web-admin', { admin: true }), web().createUser('web-not-admin')]);
      const context = await web().signedInContext(adminKey);
      try {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/account`);
        const [dashboard] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Queues' }).click()]);
        await dashboard.waitForLoadState('domcontentloaded');
        expect(new URL(dashboard.url()).pathname).to.equal('/admin/queues');
        // bull-board lists troupe's queues (each kind's drain or service queue, and the schedule queue).
        await dashboard.getByText('actor-game', { exact: false }).first().waitFor();
        await screenshot(dashboard, 'admin-queues');
      } finally {
        await context.close();
      }
      const other = await web().openView(userKey, '#/account');
      try {
        await other.getByTestId('user-name').waitFor();
        expect(await other.getByRole('button', { name: 'Queues' }).count()).to.equal(0);
        expect((await fetch(`${web().base}/admin/queues`, { headers: { authorization: `Bearer ${userKey}` } })).status).to.equal(404);
      } finally {
        await other.context().close();
      }
    });
  });
}
