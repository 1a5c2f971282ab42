/**
 * The scouting view against the real troupe (offline extraction and composition): the bundled corpus
 * uploaded through the browser's file input and indexed (the PDF too), then a run through both gates
 * (a query hint edited at gate A, the player approved at gate B), its final report with citations,
 * and the saved player in the players list. Another run asks which player (the request names none),
 * is sent back once with feedback (edit wording) at gate B, then rejected: its report is shown and no player is saved. A last flow uploads content
 * already indexed and a file that cannot be read, and sees them as duplicate and failed with the reason.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { pollUntil } from '../../support/async.js';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

const CORPUS = join(process.cwd(), 'models', 'data', 'scouting');
const RUN_URL = /#\/scouting\/([0-9a-f-]{36})$/;
/** Uploads and turns go through the runtime's queues on a busy 2-core machine: generous. */
const TURN_MS = 90_000;

interface RunView {
  status: string;
  edit_loops: number;
  query_hints: string[];
  result: { saved: boolean; player_record_id: string | null; report_id: string | null; scouting_report: string | null } | null;
}

async function corpusFiles(): Promise<string[]> {
  const index = JSON.parse(await readFile(join(CORPUS, 'index.json'), 'utf8')) as { documents: Array<{ name: string }> };
  return index.documents.map((doc) => join(CORPUS, doc.name));
}

/** Every upload row has left `sending`/`queued`; their statuses by file name. */
async function uploadOutcome(page: Page, count: number): Promise<Record<string, { status: string; detail: string }>> {
  await page.waitForFunction(
    (expected) => {
      const rows = [...document.querySelectorAll('[data-testid="upload-row"]')];
      return rows.length === expected && rows.every((row) => !['sending', 'queued'].includes(row.getAttribute('data-status') ?? ''));
    },
    count,
    { timeout: TURN_MS },
  );
  const rows = await page.locator('[data-testid="upload-row"]').evaluateAll((elements) =>
    elements.map((row) => [row.getAttribute('data-file') ?? '', { status: row.getAttribute('data-status') ?? '', detail: row.querySelector('td:last-child')?.textContent ?? '' }] as const),
  );
  return Object.fromEntries(rows);
}

export function scoutingFlows(web: () => WebTroupe): void {
  describe('Scouting view', function () {
    this.timeout(300_000);

    it('uploads the corpus, runs a scouting run through both gates and lists the saved player', async function () {
      const key = await web().createUser(`scout-${randomBytes(4).toString('hex')}`);
      const page = await web().openView(key, '#/scouting');
      try {
        await page.getByRole('heading', { name: 'Scouting', level: 1 }).waitFor();
        await page.getByText('No documents yet').waitFor();

        // Upload: the whole corpus (Markdown, text and the PDF) through the file input.
        const files = await corpusFiles();
        await page.locator('#scouting-files').setInputFiles(files);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        const outcome = await uploadOutcome(page, files.length);
        for (const file of files) {
          const name = file.split('/').at(-1)!;
          expect(outcome[name]?.status, `${name}: ${outcome[name]?.detail}`).to.equal('indexed');
        }
        expect(outcome['rafael-de-la-torre-receiver-profile.pdf']!.detail).to.match(/^pdf, \d+ chunks?, \d+ pages?$/);
        await page.getByText(`${files.length} of ${files.length} files processed`).waitFor();
        // The documents table was reloaded once indexing finished, and agrees with the API.
        await page.locator('[data-testid="document-row"][data-status="indexed"]').nth(files.length - 1).waitFor();
        const listed = await web().api<{ documents: Array<{ status: string }> }>(key, '/documents');
        expect(listed.documents.filter((d) => d.status === 'indexed')).to.have.length(files.length);
        await screenshot(page, 'scouting-upload');
        await expectAccessible(page, 'scouting: documents uploaded');

        // Start a run: gate A shows the plan.
        await page.getByLabel('What should the run scout?').fill('Generate a scouting report for Marcus Ellery');
        await page.getByRole('button', { name: 'Start the run' }).click();
        await page.waitForURL(RUN_URL, { timeout: TURN_MS });
        const runId = RUN_URL.exec(page.url())![1]!;
        const planGate = page.getByTestId('plan-gate');
        await planGate.waitFor({ timeout: TURN_MS });
        expect(await page.getByTestId('plan-player').textContent()).to.equal('Marcus Ellery');
        expect(await page.getByTestId('run-status').getAttribute('data-status')).to.equal('awaiting_plan_approval');
        expect(await planGate.locator('.plan-steps textarea').count()).to.be.within(4, 7);
        expect(await page.getByTestId('run-progress').textContent()).to.match(/Drafted a \d-step plan/);
        await screenshot(page, 'scouting-plan-gate');
        await expectAccessible(page, 'scouting: gate A');
        // The same gate, opened by its link on a phone: read back from the API.
        const phoneAtGate = await web().openView(key, `#/scouting/${runId}`, { width: 390, height: 844 });
        try {
          await phoneAtGate.getByTestId('plan-gate').waitFor();
          expect(await phoneAtGate.locator('.plan-steps textarea').count()).to.equal(await planGate.locator('.plan-steps textarea').count());
          expect(await phoneAtGate.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'horizontal overflow at 390 px').to.be.at.most(0);
          await screenshot(phoneAtGate, 'scouting-plan-gate-390');
        } finally {
          await phoneAtGate.context().close();
        }

        // Edit one hint, approve: gate B shows the player card, with the coverage report.
        const firstHint = await page.locator('#plan-hint-0').inputValue();
        await page.locator('#plan-hint-0').fill('catch-and-shoot');
        await page.getByTestId('plan-edited').waitFor();
        await page.getByRole('button', { name: 'Approve the edited plan' }).click();
        const playerGate = page.getByTestId('player-gate');
        await playerGate.waitFor({ timeout: TURN_MS });
        const atGateB = await web().api<RunView>(key, `/scouting/runs/${runId}`);
        expect(atGateB.status).to.equal('awaiting_player_approval');
        expect(atGateB.query_hints).to.include('catch-and-shoot').and.not.include(firstHint);
        await page.getByTestId('coverage-report').waitFor();
        expect(await page.getByTestId('coverage-confidence').textContent()).to.equal('high');
        const card = playerGate.getByTestId('player-card');
        expect(await card.getByRole('heading').textContent()).to.equal('Marcus Ellery');
        expect(await card.textContent()).to.include('203 cm');
        await playerGate.getByText('Full report').click();
        await playerGate.getByTestId('scouting-report').getByRole('heading', { name: 'Strengths' }).waitFor();
        await screenshot(page, 'scouting-player-gate');
        await expectAccessible(page, 'scouting: gate B');

        // Approve: the final report, rendered, with its citations and sources.
        await page.getByRole('button', { name: 'Approve and save' }).click();
        const result = page.locator('[data-testid="run-result"][data-outcome="saved"]');
        await result.waitFor({ timeout: TURN_MS });
        expect(await page.getByTestId('run-status').getAttribute('data-status')).to.equal('completed');
        const report = result.getByTestId('scouting-report');
        await report.getByRole('heading', { name: 'Scouting report: Marcus Ellery' }).waitFor();
        expect(await report.locator('sup.citation').count()).to.be.greaterThan(3);
        const sources = await report.locator('h3:has-text("Sources") + ul li').allTextContents();
        expect(sources.join('\n')).to.include('marcus-ellery-scouting-report.md');
        const done = await web().api<RunView>(key, `/scouting/runs/${runId}`);
        expect(done.result?.saved).to.equal(true);
        for (const [, n] of done.result!.scouting_report!.matchAll(/^\[(\d+)\] /gm)) expect(sources.some((line) => line.startsWith(`[${n}]`))).to.equal(true);
        await screenshot(page, 'scouting-report');
        await expectAccessible(page, 'scouting: final report');

        // The saved player, in the players list and on its own page with the report.
        await page.getByRole('navigation', { name: 'Scouting' }).getByRole('link', { name: 'Players' }).click();
        const players = page.getByTestId('players-table');
        await players.getByRole('link', { name: 'Marcus Ellery' }).waitFor();
        expect(await players.locator('tbody tr').count()).to.equal(1);
        await screenshot(page, 'scouting-players');
        await expectAccessible(page, 'scouting: players');
        await players.getByRole('link', { name: 'Marcus Ellery' }).click();
        await page.waitForURL(new RegExp(`#/scouting/player/${done.result!.player_record_id}$`));
        await page.getByTestId('player-card').waitFor();
        await page.getByTestId('scouting-report').getByRole('heading', { name: 'Scouting report: Marcus Ellery' }).waitFor();
        await expectAccessible(page, 'scouting: player');

        await page.getByRole('navigation', { name: 'Scouting' }).getByRole('link', { name: 'Reports', exact: true }).click();
        const reportRow = page.getByTestId('reports-table').locator(`[data-report-id="${done.result!.report_id}"]`);
        await reportRow.waitFor();
        expect(await reportRow.getAttribute('data-run-id')).to.equal(runId);
        expect(await reportRow.getByRole('link', { name: 'Marcus Ellery' }).count()).to.equal(1);
        await screenshot(page, 'scouting-reports');
        await expectAccessible(page, 'scouting: reports');

        // The finished run opened by its link in a phone-sized browser: read back from the API.
        const phone = await web().openView(key, `#/scouting/${runId}`, { width: 390, height: 844 });
        try {
          await phone.locator('[data-testid="run-result"][data-outcome="saved"]').waitFor();
          await phone.getByTestId('coverage-report').waitFor();
          const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, 'horizontal overflow at 390 px').to.be.at.most(0);
          await screenshot(phone, 'scouting-390');
          await expectAccessible(phone, 'scouting: run at 390 px');
        } finally {
          await phone.context().close();
        }
      } finally {
        await page.context().close();
      }
    });

    it('asks which player, sends the player back with feedback at gate B, then rejects it: no player saved', async function () {
      const key = await web().createUser(`scout-${randomBytes(4).toString('hex')}`);
      const names = ['theo-vance-profile.txt', 'harbor-city-comets-frontcourt-review.md'];
      const documents = await Promise.all(names.map(async (name) => ({ name, text: await readFile(join(CORPUS, name), 'utf8') })));
      await web().api(key, '/documents', { body: { documents } });
      await pollUntil(
        async () => (await web().api<{ documents: Array<{ status: string }> }>(key, '/documents')).documents.filter((d) => d.status === 'indexed').length === names.length,
        { timeoutMs: TURN_MS, intervalMs: 250, what: 'the two documents indexed' },
      );
      const page = await web().openView(key, '#/scouting');
      try {
        // No name in the request: the run asks which player first.
        await page.getByLabel('What should the run scout?').fill('Create a player analysis');
        await page.getByRole('button', { name: 'Start the run' }).click();
        const clarification = page.getByTestId('clarification-gate');
        await clarification.waitFor({ timeout: TURN_MS });
        await clarification.getByText("I couldn't identify the player name. Please specify.").waitFor();
        await expectAccessible(page, 'scouting: which player?');
        await page.getByLabel('Player name').fill('Theo Vance');
        await page.getByLabel('Sport').selectOption('nba');
        await page.getByRole('button', { name: 'Scout this player' }).click();
        await page.getByTestId('plan-gate').waitFor({ timeout: TURN_MS });
        expect(await page.getByTestId('plan-player').textContent()).to.equal('Theo Vance');
        const runId = RUN_URL.exec(page.url())![1]!;
        await page.getByRole('button', { name: 'Approve the plan', exact: true }).click();

        const playerGate = page.getByTestId('player-gate');
        await playerGate.getByText('3 edits left').waitFor({ timeout: TURN_MS });
        await page.getByRole('button', { name: 'Edit wording' }).click();
        await playerGate.getByRole('alert').getByText('Say what to change in the feedback first.').waitFor();
        await page.getByLabel('Feedback for an edit').fill('Shorter sentences, please.');
        await page.getByRole('button', { name: 'Edit wording' }).click();
        await playerGate.getByText('2 edits left').waitFor({ timeout: TURN_MS });
        expect((await web().api<RunView>(key, `/scouting/runs/${runId}`)).edit_loops).to.equal(1);
        expect(await page.getByLabel('Feedback for an edit').inputValue(), 'a new proposal starts with empty feedback').to.equal('');

        await page.getByRole('button', { name: 'Reject (report only)' }).click();
        const result = page.locator('[data-testid="run-result"][data-outcome="rejected"]');
        await result.waitFor({ timeout: TURN_MS });
        expect(await page.getByTestId('run-outcome').textContent()).to.equal('The player was not saved; here is the report.');
        await result.getByTestId('scouting-report').getByRole('heading', { name: 'Scouting report: Theo Vance' }).waitFor();
        expect(await result.getByRole('link', { name: 'Open the saved player' }).count()).to.equal(0);
        expect((await web().api<{ players: unknown[] }>(key, '/players')).players).to.deep.equal([]);
        await screenshot(page, 'scouting-rejected');
        await expectAccessible(page, 'scouting: rejected run');
      } finally {
        await page.context().close();
      }
    });

    it('shows content already indexed as a duplicate and an unreadable file as failed, with the reason', async function () {
      const key = await web().createUser(`scout-${randomBytes(4).toString('hex')}`);
      const dir = await mkdtemp(join(tmpdir(), 'troupe-scouting-'));
      const page = await web().openView(key, '#/scouting');
      try {
        const profile = join(CORPUS, 'theo-vance-profile.txt');
        const broken = join(dir, 'scan.pdf');
        await writeFile(broken, randomBytes(2048));
        await page.locator('#scouting-files').setInputFiles([profile]);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        expect((await uploadOutcome(page, 1))['theo-vance-profile.txt']?.status).to.equal('indexed');

        await page.locator('#scouting-files').setInputFiles([profile, broken]);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        await page.locator('[data-testid="upload-row"][data-file="scan.pdf"]').waitFor();
        const outcome = await uploadOutcome(page, 2);
        expect(outcome['theo-vance-profile.txt']).to.include({ status: 'duplicate' });
        expect(outcome['scan.pdf']!.status).to.equal('failed');
        expect(outcome['scan.pdf']!.detail).to.have.length.greaterThan(5).and.not.include('[object Object]');
        const failed = await page.getByTestId('upload-progress').getByText(outcome['scan.pdf']!.detail).count();
        expect(failed).to.equal(1);
        await page.locator('[data-testid="document-row"][data-status="failed"]').waitFor();
        await screenshot(page, 'scouting-upload-duplicate-failed');
        await expectAccessible(page, 'scouting: duplicate and failed uploads');
      } finally {
        await page.context().close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
