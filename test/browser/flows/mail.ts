/**
 * The mail view: two users, each with an inbox created in the browser, exchange mail over
 * MAIL_TRANSPORT=local (compose with a Markdown preview, read the rendered message, reply in the
 * thread), then search finds the message; plus the API's refusals shown as its own messages.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

const INBOX_URL = /#\/mail\/(ibx_[0-9a-f]{24})$/;
const THREAD_URL = /#\/mail\/(ibx_[0-9a-f]{24})\/(th_[0-9a-f]{24})$/;
/** Delivery is a message to another inbox actor, and the page re-reads every few seconds: generous. */
const MAIL_ARRIVES_MS = 45_000;

/** The sidebar's "New inbox" form, unfolded (it starts folded once there is an inbox). */
async function openCreateForm(page: Page): Promise<void> {
  // Once the list is in, the form's folding is settled: a click before could be undone by it.
  await page.locator('nav.mail-inboxes[aria-busy="false"]').waitFor();
  const details = page.locator('details.mail-create');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  await page.locator('#inbox-username').waitFor();
}

/** Creates an inbox through the sidebar form and answers its id, once the page shows it. */
async function createInbox(page: Page, username: string, name: string): Promise<string> {
  await openCreateForm(page);
  await page.locator('#inbox-username').fill(username);
  await page.locator('#inbox-name').fill(name);
  await page.getByRole('button', { name: 'Create inbox' }).click();
  await page.waitForURL(INBOX_URL);
  await page.getByRole('navigation', { name: 'Inboxes' }).getByRole('link', { name: new RegExp(username) }).waitFor();
  await page.getByRole('heading', { name: new RegExp(`${name}.*${username}@`) }).waitFor();
  return INBOX_URL.exec(page.url())![1]!;
}

async function withContexts<T>(contexts: BrowserContext[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
}

export function mailFlows(web: () => WebTroupe): void {
  describe('Mail view', function () {
    it('round trip between two inboxes: compose with a Markdown preview, read, reply in the thread, then search', async function () {
      this.timeout(240_000);
      const suffix = randomBytes(4).toString('hex');
      const [keyA, keyB] = await Promise.all([web().createUser(`mail-a-${suffix}`), web().createUser(`mail-b-${suffix}`)]);
      const contextA = await web().signedInContext(keyA);
      const contextB = await web().signedInContext(keyB);
      const phone = await web().signedInContext(keyB, { width: 390, height: 844 });
      await withContexts([contextA, contextB, phone], async () => {
        const pageA = await contextA.newPage();
        const pageB = await contextB.newPage();
        await pageA.goto(`${web().base}/#/mail`);
        await pageA.getByTestId('mail-start').getByText('Create an inbox').waitFor();
        await screenshot(pageA, 'mail-no-inbox');
        await expectAccessible(pageA, 'the mail view without an inbox');

        const alice = `alice-${suffix}`;
        const bob = `bob-${suffix}`;
        const inboxA = await createInbox(pageA, alice, 'Alice');
        await pageB.goto(`${web().base}/#/mail`);
        const inboxB = await createInbox(pageB, bob, 'Bob');
        const addressA = `${alice}@troupe.local`;
        const addressB = `${bob}@troupe.local`;

        // A writes to B, in Markdown, and sees the preview before sending.
        const codeWord = `zebra${suffix}`;
        const subject = `Quarterly plan ${suffix}`;
        await pageA.getByRole('button', { name: 'New message' }).click();
        await pageA.locator('#compose-to').fill(addressB);
        await pageA.locator('#compose-subject').fill(subject);
        await pageA.locator('#compose-body').fill(`Hello **Bob**,\n\n- ship the *mail* view\n- then the report\n\nThe code word is ${codeWord}.`);
        const preview = pageA.getByTestId('compose-preview');
        await preview.locator('strong', { hasText: 'Bob' }).waitFor();
        expect(await preview.locator('li').allTextContents()).to.deep.equal(['ship the mail view', 'then the report']);
        expect(await preview.locator('em').textContent()).to.equal('mail');
        await screenshot(pageA, 'mail-compose-preview');
        await expectAccessible(pageA, 'the compose form with its preview');
        await pageA.getByRole('button', { name: 'Send', exact: true }).click();
        await pageA.waitForURL(THREAD_URL);
        const threadA = THREAD_URL.exec(pageA.url())![2]!;
        const sent = pageA.locator('article[data-direction="outbound"]');
        await sent.locator('strong', { hasText: 'Bob' }).waitFor();
        await sent.getByText('delivered', { exact: true }).waitFor();

        // B's inbox shows the thread (newest first, with its time), and the message rendered.
        const threadLink = pageB.getByRole('list', { name: 'Threads, newest first' }).getByRole('link', { name: new RegExp(subject) });
        await threadLink.waitFor({ timeout: MAIL_ARRIVES_MS });
        expect(await threadLink.textContent()).to.include('1 message').and.include(addressA);
        const threadsB = await web().api<{ threads: Array<{ id: string; last_message_at: string }> }>(keyB, `/inboxes/${inboxB}/threads`);
        expect(threadsB.threads).to.have.length(1);
        expect(await threadLink.locator('time').getAttribute('datetime')).to.equal(threadsB.threads[0]!.last_message_at);
        await screenshot(pageB, 'mail-inbox-threads');
        await expectAccessible(pageB, 'an inbox with its threads');

        await threadLink.click();
        await pageB.waitForURL(THREAD_URL);
        const threadB = THREAD_URL.exec(pageB.url())![2]!;
        expect(threadB).to.equal(threadsB.threads[0]!.id);
        const received = pageB.locator('article[data-direction="inbound"]').getByTestId('message-body');
        await received.locator('strong', { hasText: 'Bob' }).waitFor();
        expect(await received.locator('li').allTextContents()).to.deep.equal(['ship the mail view', 'then the report']);
        expect(await pageB.getByRole('heading', { level: 2, name: subject }).count()).to.equal(1);
        await screenshot(pageB, 'mail-thread');
        await expectAccessible(pageB, 'a thread');

        // B replies in the thread: addressed to A already, with its own preview.
        expect(await pageB.locator('#reply-to').inputValue()).to.equal(addressA);
        await pageB.locator('#reply-body').fill('Thanks **Alice**, agreed.');
        await pageB.getByTestId('reply-preview').locator('strong', { hasText: 'Alice' }).waitFor();
        await pageB.getByRole('button', { name: 'Send reply' }).click();
        await pageB.locator('article[data-direction="outbound"]').locator('strong', { hasText: 'Alice' }).waitFor();
        expect(pageB.url()).to.match(new RegExp(`${threadB}$`));

        // A, still on the thread, sees the reply arrive in the same thread.
        const reply = pageA.locator('article[data-direction="inbound"]');
        await reply.locator('strong', { hasText: 'Alice' }).waitFor({ timeout: MAIL_ARRIVES_MS });
        expect(await reply.locator('.mail-message-from').textContent()).to.include(addressB);
        expect(await pageA.locator('article.mail-message').count()).to.equal(2);
        expect(pageA.url()).to.match(new RegExp(`/${inboxA}/${threadA}$`));
        const threadOfA = await web().api<{ message_count: number; subject: string }>(keyA, `/threads/${threadA}`);
        expect(threadOfA.message_count).to.equal(2);
        await screenshot(pageA, 'mail-reply-received');

        // Search finds the message by a word of its body, and leads to its thread.
        await pageB.locator('#mail-search-query').fill(codeWord);
        await pageB.getByRole('button', { name: 'Search', exact: true }).click();
        const results = pageB.getByTestId('search-results');
        await results.getByRole('status').getByText('1 message').waitFor();
        const hit = results.getByRole('link', { name: subject });
        expect(await hit.getAttribute('href')).to.equal(`#/mail/${inboxB}/${threadB}`);
        expect(await results.locator('.mail-hit-excerpt').textContent()).to.include(`Hello Bob, ship the mail view`).and.include(codeWord);
        await screenshot(pageB, 'mail-search');
        await expectAccessible(pageB, 'search results');

        // The same thread on a phone: one column, nothing wider than the screen.
        const small = await phone.newPage();
        await small.goto(`${web().base}/#/mail/${inboxB}/${threadB}`);
        await small.locator('article[data-direction="outbound"]').locator('strong', { hasText: 'Alice' }).waitFor();
        expect(await small.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
        await screenshot(small, 'mail-thread-390');
        await expectAccessible(small, 'a thread at 390 px');
      });
    });

    it("shows the API's refusals: a taken username, mail to an outside address, an unknown inbox", async function () {
      this.timeout(120_000);
      const suffix = randomBytes(4).toString('hex');
      const key = await web().createUser(`mail-c-${suffix}`);
      const context = await web().signedInContext(key);
      await withContexts([context], async () => {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/mail`);
        const username = `carol-${suffix}`;
        const inbox = await createInbox(page, username, 'Carol');
        expect(await page.locator('details.mail-create').getAttribute('open')).to.equal(null);

        await openCreateForm(page);
        await page.locator('#inbox-username').fill(username);
        await page.getByRole('button', { name: 'Create inbox' }).click();
        await page.getByRole('alert').getByText(`the email address ${username}@troupe.local is already in use`).waitFor();

        await page.locator('#inbox-username').fill('Not Valid!');
        await page.getByRole('button', { name: 'Create inbox' }).click();
        await page.getByRole('alert').getByText('lowercase letters').waitFor();
        expect(await page.getByRole('alert').textContent()).to.not.include('[object Object]');

        await page.getByRole('button', { name: 'New message' }).click();
        await page.locator('#compose-to').fill('someone@example.com');
        await page.locator('#compose-subject').fill('Outside');
        await page.locator('#compose-body').fill('Hello out there');
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await page.waitForURL(THREAD_URL);
        const failed = page.locator('article[data-direction="outbound"]');
        await failed.getByText('not delivered').waitFor();
        expect(await failed.locator('.error').textContent()).to.include('MAIL_TRANSPORT=local');
        await screenshot(page, 'mail-not-delivered');
        await expectAccessible(page, 'a message that was not delivered');

        await page.goto(`${web().base}/#/mail/ibx_${'0'.repeat(24)}`);
        await page.getByRole('alert').getByText(`inbox ibx_${'0'.repeat(24)} not found`).waitFor();
        expect(page.url()).to.not.include(inbox);
      });
    });
  });
}
