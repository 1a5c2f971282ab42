/**
 * The deck coach view, offline (LLM_PROVIDER=offline: the deterministic policy calls the real meta
 * tools over MCP): a chat turn set up with the format dropdown and the window slider, whose tool chip
 * goes calling → complete and whose answer streams in, with the state bar following; then a
 * conversation started with GET /welcome, resumed from the list in another browser and continued.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

const DECK = ['4 Ragavan, Nimble Pilferer', '4 Guide of Souls', '4 Ocelot Pride', '4 Galvanic Discharge', '4 Lightning Bolt', '4 Arid Mesa', '', 'Sideboard', '2 Blood Moon'].join('\n');
const CONVERSATION_URL = /#\/coach\/([0-9a-f-]{36})$/;
/** A turn runs the graph and real tool calls through the runtime, on a busy 2-core machine: generous. */
const TURN_MS = 90_000;

interface ConversationDetail {
  state: { format: string | null; current_days: number | null; previous_days: number | null };
  messages: Array<{ role: string; content: string }>;
}

async function withContexts<T>(contexts: BrowserContext[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
}

/** Records every status each tool chip shows, so a test sees "calling" even if it lasted a moment. */
async function recordChipStatuses(page: Page): Promise<void> {
  // No named functions inside: the test runner's transform would wrap them in a helper the page lacks.
  await page.evaluate(() => {
    const seen: string[] = [];
    (globalThis as unknown as { chipStatuses: string[] }).chipStatuses = seen;
    new MutationObserver(() => {
      for (const chip of document.querySelectorAll('[data-testid="tool-chip"]')) {
        const entry = `${chip.getAttribute('data-tool')}:${chip.getAttribute('data-status')}`;
        if (!seen.includes(entry)) seen.push(entry);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
}

const chipStatuses = (page: Page) => page.evaluate(() => (globalThis as unknown as { chipStatuses: string[] }).chipStatuses);

async function sendMessage(page: Page, message: string): Promise<void> {
  const finished = await page.locator('[data-testid="coach-turn"][data-finished="true"]').count();
  await page.locator('#coach-message').fill(message);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.locator('[data-testid="coach-turn"][data-finished="true"]').nth(finished).waitFor({ timeout: TURN_MS });
}

const stateOf = (page: Page, field: string) => page.getByTestId('state-bar').locator(`[data-state="${field}"] dd`);

export function coachFlows(web: () => WebTroupe): void {
  describe('Coach view', function () {
    it('a chat turn: format and window from the controls, tool chips calling then complete, streamed text, the state bar', async function () {
      this.timeout(240_000);
      const key = await web().createUser(`coach-${randomBytes(4).toString('hex')}`);
      const context = await web().signedInContext(key);
      await withContexts([context], async () => {
        const page = await context.newPage();
        await page.goto(`${web().base}/#/coach`);
        await page.getByRole('heading', { name: 'Deck coach' }).waitFor();
        await page.getByTestId('conversation-list').waitFor({ state: 'attached' });
        await page.getByText('No conversations yet.').waitFor();
        await expectAccessible(page, 'the coach view with no conversation');

        // The controls: the format from GET /formats, the archetypes in the meta's order for the window.
        await page.locator('#coach-format option[value="Modern"]').waitFor({ state: 'attached' });
        await page.locator('#coach-format').selectOption('Modern');
        await page.locator('#coach-current-days').fill('14');
        expect(await page.getByTestId('coach-current-days-value').textContent()).to.equal('14 days');
        const archetypes = await web().api<{ archetypes: Array<{ name: string; meta_share: number }> }>(key, '/archetypes?format=Modern&days=14');
        const [top, second] = archetypes.archetypes;
        const expected = `${top!.name} — ${top!.meta_share}%`;
        // The list follows the slider: wait for the 14-day order (30 days would rank the same names with other shares).
        await page.waitForFunction((text) => document.querySelectorAll('#coach-archetype option')[1]?.textContent === text, expected, { timeout: 30_000 });
        expect(await page.locator('#coach-archetype option').nth(2).textContent()).to.equal(`${second!.name} — ${second!.meta_share}%`);

        await recordChipStatuses(page);
        await sendMessage(page, 'What are the top decks in the meta?');

        await page.waitForURL(CONVERSATION_URL);
        const conversationId = CONVERSATION_URL.exec(page.url())![1]!;
        const chip = page.locator('[data-testid="tool-chip"][data-tool="get_format_meta_rankings"]');
        expect(await chip.getAttribute('data-status')).to.equal('complete');
        expect(await chip.textContent()).to.match(/complete.*Modern: \d+ archetypes; top: /);
        const statuses = await chipStatuses(page);
        expect(statuses).to.include('get_format_meta_rankings:calling');
        expect(statuses.indexOf('get_format_meta_rankings:calling')).to.be.below(statuses.indexOf('get_format_meta_rankings:complete'));

        // The streamed answer, written from the real rankings.
        const answer = page.locator('[data-testid="coach-turn"] .coach-answer');
        expect(await answer.textContent()).to.contain('Modern meta rankings');
        expect(await answer.locator('strong', { hasText: top!.name }).count()).to.be.greaterThan(0);

        expect(await stateOf(page, 'format').textContent()).to.equal('Modern');
        expect(await stateOf(page, 'current').textContent()).to.equal('14 days');
        expect(await stateOf(page, 'workflow').textContent()).to.equal('meta research');
        const stored = await web().api<ConversationDetail>(key, `/conversations/${conversationId}`);
        expect(stored.state).to.include({ format: 'Modern', current_days: 14 });
        expect(stored.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);

        // The new conversation is in the list, marked as the open one.
        await page.locator(`[data-conversation-id="${conversationId}"] a[aria-current="page"]`).waitFor();
        await screenshot(page, 'coach-chat-turn');
        await expectAccessible(page, 'the coach view after a turn');

        // Deck coaching: the deck box and the archetype dropdown go with the next message.
        await page.locator('#coach-deck').fill(DECK);
        await page.locator('#coach-archetype').selectOption(top!.name);
        await sendMessage(page, 'Here is my deck, what do you make of it?');
        const deckChip = page.locator('[data-testid="tool-chip"][data-tool="get_enriched_deck"]');
        expect(await deckChip.getAttribute('data-status')).to.equal('complete');
        expect(await stateOf(page, 'deck').textContent()).to.equal('loaded');
        expect(await stateOf(page, 'archetype').textContent()).to.equal(top!.name);
        expect(await stateOf(page, 'workflow').textContent()).to.equal('deck coaching');
        expect(await page.locator('#coach-archetype').inputValue()).to.equal(top!.name);
        await screenshot(page, 'coach-deck-turn');
        await expectAccessible(page, 'the coach view after a deck turn');
      });
    });

    it('a conversation started with /welcome, resumed from the list in another browser and continued (also at 390 px)', async function () {
      this.timeout(300_000);
      const key = await web().createUser(`coach-resume-${randomBytes(4).toString('hex')}`);
      const first = await web().signedInContext(key);
      const phone = await web().signedInContext(key, { width: 390, height: 844 });
      await withContexts([first, phone], async () => {
        const page = await first.newPage();
        await page.goto(`${web().base}/#/coach`);
        await page.getByTestId('new-conversation').click();
        await page.waitForURL(CONVERSATION_URL, { timeout: TURN_MS });
        const conversationId = CONVERSATION_URL.exec(page.url())![1]!;
        await page.getByTestId('history-answer').first().waitFor({ timeout: TURN_MS });
        await screenshot(page, 'coach-welcome');
        await expectAccessible(page, 'a new conversation with its welcome');
        await sendMessage(page, 'what are the top Pioneer decks over the last 30 days?');
        expect(await stateOf(page, 'format').textContent()).to.equal('Pioneer');
        expect(CONVERSATION_URL.exec(page.url())![1]).to.equal(conversationId);

        // Another browser (a phone) opens the list and resumes the conversation.
        const mobile = await phone.newPage();
        await mobile.goto(`${web().base}/#/coach`);
        const row = mobile.locator(`[data-conversation-id="${conversationId}"]`);
        await row.getByRole('link', { name: 'what are the top Pioneer decks over the last 30 days?' }).click();
        await mobile.waitForURL(new RegExp(`#/coach/${conversationId}$`));
        await mobile.getByTestId('history-answer').nth(1).waitFor();
        expect(await mobile.getByTestId('history-answer').nth(1).textContent()).to.contain('Pioneer meta rankings');
        expect(await stateOf(mobile, 'format').textContent()).to.equal('Pioneer');
        expect(await stateOf(mobile, 'current').textContent()).to.equal('30 days');
        expect(await mobile.locator('#coach-format').inputValue()).to.equal('Pioneer');
        expect(await mobile.getByTestId('coach-current-days-value').textContent()).to.equal('30 days');
        await mobile.locator('#coach-archetype option').nth(1).waitFor({ state: 'attached' });
        await screenshot(mobile, 'coach-resumed-390');
        await expectAccessible(mobile, 'a resumed conversation at 390 px');

        // Continue it: the window slider changes the window of the next answer.
        await mobile.locator('#coach-current-days').fill('7');
        await sendMessage(mobile, 'And what does the meta look like now?');
        expect(await stateOf(mobile, 'current').textContent()).to.equal('7 days');
        expect(await mobile.locator('[data-testid="tool-chip"][data-tool="get_format_meta_rankings"]').getAttribute('data-status')).to.equal('complete');
        const stored = await web().api<ConversationDetail>(key, `/conversations/${conversationId}`);
        expect(stored.state).to.include({ format: 'Pioneer', current_days: 7 });
        expect(stored.messages.map((m) => m.role)).to.deep.equal(['assistant', 'user', 'assistant', 'user', 'assistant']);
        await screenshot(mobile, 'coach-continued-390');

        // The first browser reloads the conversation and sees the whole history.
        await page.reload();
        await page.getByTestId('history-answer').nth(2).waitFor();
        expect(await stateOf(page, 'current').textContent()).to.equal('7 days');
        await screenshot(page, 'coach-resumed');
        await expectAccessible(page, 'a resumed conversation');

        // An unknown conversation shows the API's own message.
        await page.goto(`${web().base}/#/coach/00000000-0000-4000-8000-000000000000`);
        await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
      });
    });
  });
}
