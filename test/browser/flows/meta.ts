/**
 * The MTG meta view against the seeded dataset: the rankings table, the share and trend charts and
 * the matchup heat map show the API's own numbers; archetype details; the deck box with a real list
 * from the bundled data (enriched deck, matchups, strategy, optimizer diffs); errors; 390 px.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { expectAccessible, screenshot, type WebTroupe } from '../harness.js';

const FORMAT = 'Modern';
const DECK_ARCHETYPE = 'Boros Energy';

interface RankingRow {
  archetype: string;
  meta_share_current: number;
  meta_share_previous: number;
}
interface Rankings {
  data: RankingRow[];
  metadata: { current_period: { start: string; end: string } };
}
interface Matrix {
  matrix: Record<string, Record<string, { win_rate: number | null; match_count: number }>>;
  archetypes: string[];
}
interface DeckMatchups {
  matchup_stats: Array<{ opponent_archetype: string; win_rate: number | null; match_count: number }>;
  overall: { win_rate: number | null; match_count: number };
}
interface CardDetail {
  name: string;
  quantity: number;
  section: 'mainboard' | 'sideboard';
}
interface Enriched {
  card_details: CardDetail[];
  mainboard_count: number;
  sideboard_count: number;
}
interface Sideboard {
  sideboard_changes: unknown[];
  final_sideboard: Array<{ name: string; quantity: number }>;
}
interface Mainboard {
  recommendations: Array<{ add: string; quantity: number; replaces: string | null }>;
}
interface Strategy {
  matchup_stats: { win_rate: number | null; match_count: number };
  advice: string;
}
interface ChartSeries {
  labels: string[];
  datasets: Array<{ label: string; data: number[] }>;
}

const percent = (value: number | null) => (value === null ? '—' : `${value}%`);
const unique = (what: string) => `meta-${what}-${randomUUID().slice(0, 6)}`;

async function metaTool<T>(web: WebTroupe, key: string, type: string, payload: Record<string, unknown>): Promise<T> {
  return (await web.api<{ reply: T }>(key, '/services/meta/messages', { body: { type, payload } })).reply;
}

/** The rankings table's rows as shown: archetype and "share now" text. */
async function shownRankings(page: Page, count: number): Promise<Array<{ archetype: string; share: string }>> {
  const rows = page.getByTestId('meta-rankings-table').locator('tbody tr');
  await rows.nth(count - 1).waitFor();
  return rows.evaluateAll(
    (trs, n) => trs.slice(0, n).map((tr) => ({ archetype: tr.getAttribute('data-archetype') ?? '', share: tr.querySelector('[data-cell="share-now"]')?.textContent ?? '' })),
    count,
  );
}

/** The series a chart was drawn with (read back from its Chart.js instance), once it has drawn. */
async function chartSeries(page: Page, testId: string): Promise<ChartSeries> {
  const canvas = page.getByTestId(testId);
  await canvas.waitFor();
  expect(await canvas.getAttribute('role')).to.equal('img');
  expect(await canvas.getAttribute('aria-label')).to.be.a('string').and.not.equal('');
  // Drawn: enough non-transparent pixels on the canvas.
  await page.waitForFunction((id) => {
    const element = document.querySelector(`[data-testid="${id}"]`) as HTMLCanvasElement | null;
    if (!element || element.width === 0) return false;
    const pixels = element.getContext('2d')!.getImageData(0, 0, element.width, element.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
    return painted > 2000;
  }, testId, { timeout: 30_000 });
  return JSON.parse((await canvas.getAttribute('data-series'))!) as ChartSeries;
}

/** A real Modern Boros Energy list from the bundled data whose sideboard the optimizer would change. */
async function realDeckWithSideboardChanges(web: WebTroupe, key: string): Promise<{ text: string; enriched: Enriched }> {
  const data = join(process.cwd(), 'models', 'data', 'mtg');
  const cards = JSON.parse(gunzipSync(readFileSync(join(data, 'cards.json.gz'))).toString('utf8')) as Array<{ name: string }>;
  const decks = JSON.parse(gunzipSync(readFileSync(join(data, 'decklists.json.gz'))).toString('utf8')) as Array<{
    id: number;
    format: string;
    date: string;
    archetype: string;
    mainboard: Array<[number, number]>;
    sideboard: Array<[number, number]>;
  }>;
  const candidates = decks
    .filter((deck) => deck.format === FORMAT && deck.archetype === DECK_ARCHETYPE && deck.sideboard.length > 0)
    .sort((a, b) => b.date.localeCompare(a.date) || a.id - b.id)
    .slice(0, 20);
  const lines = (entries: Array<[number, number]>) => entries.map(([card, count]) => `${count} ${cards[card]!.name}`).join('\n');
  for (const deck of candidates) {
    const text = `${lines(deck.mainboard)}\n\nSideboard\n${lines(deck.sideboard)}`;
    const enriched = await metaTool<Enriched>(web, key, 'get_enriched_deck', { deck: text });
    const sideboard = await metaTool<Sideboard>(web, key, 'optimize_sideboard', { card_details: enriched.card_details, archetype: DECK_ARCHETYPE, format: FORMAT });
    if (sideboard.sideboard_changes.length > 0) return { text, enriched };
  }
  throw new Error(`none of the ${candidates.length} newest ${FORMAT} ${DECK_ARCHETYPE} lists gets sideboard changes`);
}

/** Cards in (+) and out (−) as a diff list shows them: name → signed count. */
async function shownDiff(page: Page, testId: string): Promise<Record<string, number>> {
  const diff = page.getByTestId(testId);
  await diff.waitFor();
  return diff.locator('li[data-card]').evaluateAll((items) => Object.fromEntries(items.map((li) => [li.getAttribute('data-card')!, Number(li.getAttribute('data-count'))])));
}

function tally(entries: Array<[string, number]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [name, count] of entries) counts.set(name, (counts.get(name) ?? 0) + count);
  return counts;
}

export function metaFlows(web: () => WebTroupe): void {
  describe('Meta view', function () {
    it('shows the rankings, the share and trend charts and the matchup heat map with the API numbers, for the windows picked', async function () {
      const key = await web().createUser(unique('rankings'));
      const formats = (await web().api<{ formats: string[] }>(key, '/formats')).formats;
      expect(formats).to.include(FORMAT);
      const [rankings, matrix, lastWeek] = await Promise.all([
        metaTool<Rankings>(web(), key, 'get_format_meta_rankings', { format: FORMAT, current_days: 30, previous_days: 30 }),
        metaTool<Matrix>(web(), key, 'get_format_matchup_stats', { format: FORMAT, days: 30 }),
        metaTool<Rankings>(web(), key, 'get_format_meta_rankings', { format: FORMAT, current_days: 7, previous_days: 7 }),
      ]);

      const page = await web().openView(key, `#/meta/${FORMAT}`);
      try {
        // The formats come from the API.
        await page.locator('#meta-format option').nth(formats.length - 1).waitFor({ state: 'attached' });
        expect(await page.locator('#meta-format option').allTextContents()).to.deep.equal(formats);
        expect(await page.locator('#meta-format').inputValue()).to.equal(FORMAT);

        // The table: the top ten archetypes and their shares, as the API ranks them.
        const shown = await shownRankings(page, 10);
        expect(shown).to.deep.equal(rankings.data.slice(0, 10).map((row) => ({ archetype: row.archetype, share: percent(row.meta_share_current) })));

        // The share chart was drawn with the same numbers: now and before.
        const share = await chartSeries(page, 'meta-share-chart');
        expect(share.labels).to.deep.equal(rankings.data.slice(0, 10).map((row) => row.archetype));
        expect(share.datasets[0]!.data).to.deep.equal(rankings.data.slice(0, 10).map((row) => row.meta_share_current));
        expect(share.datasets[1]!.data).to.deep.equal(rankings.data.slice(0, 10).map((row) => row.meta_share_previous));

        // The trend: the top five, weekly over the 60 days; the newest point is the last 7 days' share.
        const trend = await chartSeries(page, 'meta-trend-chart');
        expect(trend.labels).to.have.length(9);
        expect(trend.datasets.map((d) => d.label)).to.deep.equal(rankings.data.slice(0, 5).map((row) => row.archetype));
        for (const dataset of trend.datasets) {
          const newest = lastWeek.data.find((row) => row.archetype === dataset.label)?.meta_share_current ?? 0;
          expect(dataset.data.at(-1), dataset.label).to.equal(newest);
        }

        // The heat map: the twelve archetypes with most matches, each cell the API's win rate and count.
        const heatRows = page.getByTestId('meta-matrix-table').locator('tbody tr');
        expect(await heatRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')))).to.deep.equal(matrix.archetypes.slice(0, 12));
        for (const row of matrix.archetypes.slice(0, 4)) {
          for (const column of matrix.archetypes.slice(0, 4)) {
            const cell = page.locator(`tr[data-row="${row}"] td[data-column="${column}"]`);
            const expected = matrix.matrix[row]?.[column];
            expect(await cell.getAttribute('data-matches'), `${row} vs ${column}`).to.equal(String(expected?.match_count ?? 0));
            if (expected?.win_rate !== null && expected !== undefined) {
              expect(await cell.getAttribute('data-win-rate'), `${row} vs ${column}`).to.equal(String(expected.win_rate));
              const text = (await cell.locator('.heat-rate').textContent()) ?? '';
              expect(text.startsWith(`${expected.win_rate}%`), `${row} vs ${column}: ${text}`).to.equal(true);
            }
          }
        }
        await screenshot(page, 'meta-rankings');
        await expectAccessible(page, 'the meta view (rankings, charts, heat map)');

        // Other windows: 14 days now, 7 before; the table follows the API again.
        const narrower = await metaTool<Rankings>(web(), key, 'get_format_meta_rankings', { format: FORMAT, current_days: 14, previous_days: 7 });
        await page.getByLabel('Current window (days)').fill('14');
        await page.getByLabel('Previous window (days)').fill('7');
        await page.getByRole('button', { name: 'Show', exact: true }).click();
        const period = narrower.metadata.current_period;
        await page.getByTestId('meta-periods').filter({ hasText: `Now: ${period.start} to ${period.end}` }).waitFor({ timeout: 30_000 });
        expect(await shownRankings(page, 5)).to.deep.equal(narrower.data.slice(0, 5).map((row) => ({ archetype: row.archetype, share: percent(row.meta_share_current) })));
        // The chart is redrawn with the new windows' numbers.
        const redrawn = { labels: narrower.data.slice(0, 10).map((row) => row.archetype), now: narrower.data.slice(0, 10).map((row) => row.meta_share_current), before: narrower.data.slice(0, 10).map((row) => row.meta_share_previous) };
        await page.waitForFunction(
          (expected) => {
            const series = JSON.parse(document.querySelector('[data-testid="meta-share-chart"]')?.getAttribute('data-series') ?? 'null') as ChartSeries | null;
            return JSON.stringify([series?.labels, series?.datasets[0]?.data, series?.datasets[1]?.data]) === JSON.stringify([expected.labels, expected.now, expected.before]);
          },
          redrawn,
          { timeout: 30_000 },
        );
        await chartSeries(page, 'meta-share-chart');
      } finally {
        await page.context().close();
      }
    });

    it('opens an archetype from the rankings: its figures, best and worst matchups and record against each opponent', async function () {
      const key = await web().createUser(unique('details'));
      const rankings = await metaTool<Rankings>(web(), key, 'get_format_meta_rankings', { format: FORMAT, current_days: 30, previous_days: 30 });
      const top = rankings.data[0]!;
      const matchups = await metaTool<DeckMatchups>(web(), key, 'get_deck_matchup_stats', { format: FORMAT, archetype: top.archetype, days: 30 });

      const page = await web().openView(key, `#/meta/${FORMAT}`);
      try {
        await page.getByTestId('meta-rankings-table').getByRole('link', { name: top.archetype, exact: true }).click();
        const details = page.getByTestId('archetype-details');
        await details.getByRole('heading', { name: top.archetype }).waitFor();
        expect(decodeURIComponent(new URL(page.url()).hash)).to.equal(`#/meta/${FORMAT}/${top.archetype}`);
        expect(await details.getByTestId('details-share').innerText()).to.equal(percent(top.meta_share_current));
        await details.getByTestId('details-matchups').waitFor();
        expect(await details.getByTestId('details-matchups-overall').innerText()).to.include(`${percent(matchups.overall.win_rate)} over ${matchups.overall.match_count} matches`);
        const rows = await details
          .getByTestId('details-matchups')
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.slice(0, 8).map((tr) => ({
              opponent: tr.getAttribute('data-opponent'),
              winRate: tr.querySelector('[data-cell="win-rate"]')?.textContent,
              matches: Number(tr.querySelector('[data-cell="matches"]')?.textContent),
            })),
          );
        expect(rows).to.deep.equal(matchups.matchup_stats.slice(0, 8).map((m) => ({ opponent: m.opponent_archetype, winRate: percent(m.win_rate), matches: m.match_count })));
        await details.getByTestId('details-extremes').waitFor();
        await screenshot(page, 'meta-archetype-details');
        await expectAccessible(page, 'the meta view with archetype details');

        await details.getByRole('link', { name: 'Close details' }).click();
        await details.waitFor({ state: 'detached' });
      } finally {
        await page.context().close();
      }
    });

    it('the deck box takes a real list from the data: enriched deck, matchups, strategy and the optimizers as diffs', async function () {
      this.timeout(180_000);
      const key = await web().createUser(unique('deck'));
      const { text, enriched } = await realDeckWithSideboardChanges(web(), key);
      const archetypes = (await web().api<{ archetypes: Array<{ name: string }> }>(key, `/archetypes?format=${FORMAT}&days=30`)).archetypes;
      const opponent = archetypes.find((entry) => entry.name !== DECK_ARCHETYPE)!.name;
      const cards = enriched.card_details;
      const [matchups, strategy, mainboard, sideboard] = await Promise.all([
        metaTool<DeckMatchups>(web(), key, 'get_deck_matchup_stats', { format: FORMAT, archetype: DECK_ARCHETYPE, days: 30 }),
        metaTool<Strategy>(web(), key, 'generate_deck_matchup_strategy', { card_details: cards, archetype: DECK_ARCHETYPE, opponent_archetype: opponent, format: FORMAT, days: 30 }),
        metaTool<Mainboard>(web(), key, 'optimize_mainboard', { card_details: cards, archetype: DECK_ARCHETYPE, format: FORMAT, days: 30 }),
        metaTool<Sideboard>(web(), key, 'optimize_sideboard', { card_details: cards, archetype: DECK_ARCHETYPE, format: FORMAT, days: 30 }),
      ]);

      const page = await web().openView(key, `#/meta/${FORMAT}`);
      try {
        const box = page.getByTestId('deck-box');
        await box.getByLabel('Its archetype').locator('option').first().waitFor({ state: 'attached' });
        // Archetypes are offered in meta order, from the API.
        expect(await box.getByLabel('Its archetype').locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).to.deep.equal(
          archetypes.map((entry) => entry.name),
        );
        await box.getByLabel('Deck list').fill(text);
        await box.getByLabel('Its archetype').selectOption(DECK_ARCHETYPE);
        expect(await box.getByLabel('Opponent for the strategy').inputValue()).to.equal(opponent);
        await box.getByRole('button', { name: 'Analyse deck' }).click();

        // The enriched deck.
        await box.getByTestId('enriched-deck').waitFor({ timeout: 60_000 });
        expect(await box.getByTestId('deck-counts').innerText()).to.equal(`Main deck: ${enriched.mainboard_count} cards. Sideboard: ${enriched.sideboard_count} cards.`);
        expect(await box.getByTestId('enriched-deck').locator('tr[data-card]').count()).to.equal(cards.length);

        // The archetype's matchups.
        const matchupRows = box.getByTestId('deck-matchups-table').locator('tbody tr');
        await matchupRows.first().waitFor({ timeout: 60_000 });
        expect(await matchupRows.evaluateAll((trs) => trs.slice(0, 5).map((tr) => tr.getAttribute('data-opponent')))).to.deep.equal(
          matchups.matchup_stats.slice(0, 5).map((m) => m.opponent_archetype),
        );

        // The strategy against the opponent.
        const strategyPanel = box.getByTestId('deck-strategy');
        await strategyPanel.waitFor({ timeout: 60_000 });
        expect(await strategyPanel.innerText()).to.include(`Record against ${opponent}: ${percent(strategy.matchup_stats.win_rate)} over ${strategy.matchup_stats.match_count} matches`);
        expect(await strategyPanel.locator('.advice').innerText()).to.include(`${DECK_ARCHETYPE} vs ${opponent}`);

        // The main deck diff: each swap's card in and card out, with counts.
        const mainDiff = await shownDiff(page, 'mainboard-diff');
        const mainIn = tally(mainboard.recommendations.map((r) => [r.add, r.quantity]));
        const mainOut = tally(mainboard.recommendations.flatMap((r): Array<[string, number]> => (r.replaces ? [[r.replaces, r.quantity]] : [])));
        expect(mainboard.recommendations.length).to.be.greaterThan(0);
        expect(mainDiff).to.deep.equal({ ...Object.fromEntries([...mainOut].map(([name, n]) => [name, -n])), ...Object.fromEntries(mainIn) });

        // The sideboard diff: your sideboard against the suggested final 15.
        const sideDiff = await shownDiff(page, 'sideboard-diff');
        const before = tally(cards.filter((c) => c.section === 'sideboard').map((c) => [c.name, c.quantity]));
        const after = tally(sideboard.final_sideboard.map((c) => [c.name, c.quantity]));
        const expectedSide: Record<string, number> = {};
        for (const name of new Set([...before.keys(), ...after.keys()])) {
          const delta = (after.get(name) ?? 0) - (before.get(name) ?? 0);
          if (delta !== 0) expectedSide[name] = delta;
        }
        expect(Object.keys(expectedSide)).to.not.be.empty;
        expect(sideDiff).to.deep.equal(expectedSide);
        expect(await box.getByTestId('final-sideboard').locator('li').count()).to.equal(sideboard.final_sideboard.length);

        await screenshot(page, 'meta-deck-box');
        await expectAccessible(page, 'the meta view with the deck box results');
      } finally {
        await page.context().close();
      }
    });

    it('shows the API message for an unknown format', async function () {
      const key = await web().createUser(unique('error'));
      const answer = await fetch(`${web().base}/services/meta/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'get_format_meta_rankings', payload: { format: 'Nowhere', current_days: 30, previous_days: 30 } }),
      });
      expect(answer.ok).to.equal(false);
      const message = ((await answer.json()) as { error: { message: string } }).error.message;

      const page = await web().openView(key, '#/meta/Nowhere');
      try {
        const alert = page.getByRole('alert').first();
        await alert.waitFor();
        expect(await alert.innerText()).to.equal(message);
        expect(await page.locator('main').innerText()).to.not.include('[object Object]');
        await screenshot(page, 'meta-unknown-format');
        await expectAccessible(page, 'the meta view with an error');
      } finally {
        await page.context().close();
      }
    });

    it('fits a 390 px wide phone', async function () {
      const key = await web().createUser(unique('phone'));
      const page = await web().openView(key, `#/meta/${FORMAT}/${DECK_ARCHETYPE}`, { width: 390, height: 844 });
      try {
        await page.getByTestId('meta-rankings-table').locator('tbody tr').first().waitFor();
        await page.getByTestId('meta-matrix-table').waitFor();
        await page.getByTestId('details-matchups').waitFor();
        await chartSeries(page, 'meta-trend-chart');
        // Wide tables scroll inside their box; the page itself does not scroll sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
        await screenshot(page, 'meta-390');
        await expectAccessible(page, 'the meta view at 390 px');
      } finally {
        await page.context().close();
      }
    });
  });
}
