import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground } from '../../playground/build.js';
import { startPlayground, type Playground } from '../../playground/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';

// The playground's layout in Debian's Chromium, from a phone (360 px) to a wide screen (1920 px): no
// sideways scroll, the header band as wide as the page, every cut-off log cell readable. Screenshots
// at 390 px and 1280 px go to .tmp/screenshots/ (not committed), for a person to look at.

const SCREENSHOTS = join(process.cwd(), '.tmp', 'screenshots');

let dir: string;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let playground: Playground | undefined;
let page: Page | undefined;

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens the playground at `width` with its default jobs, and waits until each card has logged an answer. */
async function open(width: number): Promise<string[]> {
  playground = await startPlayground(dir);
  page = await chromium!.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${playground.url}?interval=500`);
  await waitFor(async () => (await page!.$$('[data-testid=job-card]')).length === 3, 'three job cards');
  await waitFor(
    async () => (await page!.$$eval('[data-testid=job-card]', (cards) => cards.every((card) => card.querySelector('[data-kind=ok]')))) === true,
    'an answer in every card',
  );
  return errors;
}

/** How wide the page is against the viewport, and how wide the header band is. */
const widths = (): Promise<{ scroll: number; inner: number; header: number }> =>
  page!.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: innerWidth,
    header: document.querySelector('header.top')!.getBoundingClientRect().width,
  }));

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('the playground layout in Chromium', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pollite-playground-layout-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    await buildPlayground(dir);
    chromium = await launchChromium();
  });

  afterEach(async () => {
    await page?.close();
    page = undefined;
    await playground?.close();
    playground = undefined;
  });

  afterAll(async () => {
    await chromium?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([360, 390, 1280, 1920])('at %i px nothing scrolls sideways, and the header band spans the page', async (width) => {
    const errors = await open(width);
    // A Retry-After outage fills the logs with the longest lines the playground writes.
    await page!.click('[data-testid=outage-retry-after]');
    await waitFor(async () => (await page!.$$('[data-testid=log-row][data-result="503"]')).length >= 2, 'two 503s');
    const seen = await widths();
    expect(seen.inner).toBe(width);
    expect(seen.scroll, `the page is ${seen.scroll} px wide at ${width} px`).toBeLessThanOrEqual(seen.inner);
    expect(seen.header).toBe(seen.inner);
    if (width === 390 || width === 1280) await page!.screenshot({ path: join(SCREENSHOTS, `playground-${width}.png`), fullPage: true });
    await page!.click('[data-testid=outage-off]');
    expect(errors).toEqual([]);
  });

  it('a log cell cut off at 390 px is read in full: in its tooltip, and by opening its row', async () => {
    await open(390);
    await page!.click('[data-testid=outage-retry-after]');
    await waitFor(async () => (await page!.$$('[data-testid=log-row][data-result="503"]')).length >= 1, 'a 503');
    await page!.click('[data-testid=outage-off]');
    // The first row whose last cell is cut off (its text wider than the cell).
    const cut = await page!.$$eval('[data-testid=log-row]', (rows) =>
      rows.findIndex((row) => {
        const cell = row.querySelector<HTMLElement>('.log-why');
        return cell !== null && cell.scrollWidth > cell.clientWidth + 1;
      }),
    );
    expect(cut, 'no log cell is cut off at 390 px: nothing to read in full').toBeGreaterThanOrEqual(0);
    const row = (await page!.$$('[data-testid=log-row]'))[cut]!;
    const why = (await row.getAttribute('data-why'))!;
    expect(await row.getAttribute('title')).toContain(why);
    await row.click();
    expect(await row.getAttribute('aria-expanded')).toBe('true');
    const opened = await row.$eval('.log-why', (cell) => ({ text: cell.textContent ?? '', cut: cell.scrollWidth > cell.clientWidth + 1 }));
    expect(opened.cut).toBe(false);
    expect(opened.text).toContain(why);
    // The log stays within its card, opened or not.
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await row.press('Enter');
    expect(await row.getAttribute('aria-expanded')).toBe('false');
  });
});
