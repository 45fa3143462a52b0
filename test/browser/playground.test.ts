import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground } from '../../playground/build.js';
import { appendEvent, type LogRow } from '../../playground/src/parts/request-log-model.js';
import { startPlayground, type Playground } from '../../playground/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';

// The playground in Debian's Chromium: the page built once per run, served
// with the demo job API on 127.0.0.1; what the API received is read from its
// own counters, never from the page.
//
// Hidden tabs: headless Chromium reports every page visible. Minimising its
// window (CDP Browser.setWindowBounds), bringing another tab to the front
// and freezing the page (Page.setWebLifecycleState) all leave
// document.visibilityState at 'visible' (tried with Chromium 156), so the
// page is hidden the way a browser hides it from a script's point of view:
// document.visibilityState / document.hidden redefined and a real
// `visibilitychange` event dispatched.

interface Row {
  n: number;
  kind: string;
  at: number;
  result?: string;
  wait?: number;
  why?: string;
  ms?: number;
}

let dir: string;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let playground: Playground | undefined;
let page: Page | undefined;

const rowsOf = (jobId: string): Promise<Row[]> =>
  page!.$$eval(`[data-testid=job-card][data-job-id="${jobId}"] [data-testid=log-row]`, (items) =>
    items.map((item) => {
      const d = (item as HTMLElement).dataset;
      return {
        n: Number(d.n),
        kind: d.kind!,
        at: Number(d.at),
        ...(d.result === undefined ? {} : { result: d.result }),
        ...(d.wait === undefined ? {} : { wait: Number(d.wait) }),
        ...(d.why === undefined ? {} : { why: d.why }),
        ...(d.ms === undefined ? {} : { ms: Number(d.ms) }),
      };
    }),
  );

const jobIds = (): Promise<string[]> =>
  page!.$$eval('[data-testid=job-card]', (cards) => cards.map((card) => (card as HTMLElement).dataset.jobId!));

const stats = async (id: string): Promise<{ requests: number; notModified: number; errors: number; ignoredRetryAfter: number }> =>
  playground!.demo.api.stats(id)!;

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function open(query: string): Promise<string[]> {
  playground = await startPlayground(dir);
  page = await chromium!.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${playground.url}?${query}`);
  return errors;
}

const setHidden = (hidden: boolean): Promise<void> =>
  page!.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('the playground in Chromium', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pollite-playground-'));
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

  it('polls three jobs to their terminal states; every request in the log reached the API', async () => {
    const errors = await open('jobs=1500,2500,2000!&interval=300');
    await waitFor(async () => (await jobIds()).length === 3, 'three job cards');
    const ids = await jobIds();
    await waitFor(
      async () => (await page!.$$('[data-testid=job-card][data-status=done]')).length === 3,
      'three finished jobs',
    );
    const badges = await page!.$$eval('[data-testid=job-badge]', (items) => items.map((item) => item.textContent));
    expect(badges).toEqual(['done', 'done', 'failed']);
    for (const id of ids) {
      const rows = await rowsOf(id);
      const seen = await stats(id);
      expect(rows.filter((row) => row.n > 0)).toHaveLength(seen.requests);
      expect(rows.filter((row) => row.kind === 'not-modified')).toHaveLength(seen.notModified);
      expect(rows.every((row) => row.kind === 'ok' || row.kind === 'not-modified')).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it('during an outage the log shows Retry-After honoured, then backoff without it, and recovers', async () => {
    await open('jobs=600000&interval=300');
    await waitFor(async () => (await jobIds()).length === 1, 'the job card');
    const [id] = await jobIds();
    await waitFor(async () => (await rowsOf(id!)).some((row) => row.kind === 'ok'), 'a first answer');

    await page!.click('[data-testid=outage-retry-after]');
    await waitFor(async () => (await rowsOf(id!)).filter((row) => row.result === '503').length >= 2, 'two 503s');
    const paced = (await rowsOf(id!)).filter((row) => row.result === '503' && row.wait !== undefined);
    for (const row of paced) {
      expect(row.why).toBe('Retry-After 2 s honoured');
      expect(row.wait).toBeGreaterThanOrEqual(2000);
      expect(row.wait).toBeLessThanOrEqual(2400);
    }
    // Paced answers are not failures in a row, and the label says that is what it counts.
    expect(await page!.textContent('[data-testid=job-attempt]')).toBe('0');
    expect(await page!.$eval('[data-testid=job-attempt]', (dd) => dd.previousElementSibling?.textContent?.trim())).toBe('failures in a row');
    // The job's line counts down the wait it is in (the hook's secondsLeft): "next try in 3 s", then 2, then 1.
    const shown: number[] = [];
    const until = Date.now() + 2600;
    while (Date.now() < until) {
      const line = (await page!.textContent('[data-testid=job-line]')) ?? '';
      const seconds = /next try in (\d+) s/.exec(line)?.[1];
      if (seconds !== undefined && shown.at(-1) !== Number(seconds)) shown.push(Number(seconds));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(shown.length, `the countdown showed ${shown.join(', ')}`).toBeGreaterThanOrEqual(2);
    expect(shown.some((n, i) => i > 0 && n === shown[i - 1]! - 1), `the countdown showed ${shown.join(', ')}`).toBe(true);

    await page!.click('[data-testid=outage-plain]');
    await waitFor(
      async () => (await rowsOf(id!)).some((row) => row.why === 'backoff after failure 2'),
      'a second backoff',
    );
    expect((await rowsOf(id!)).some((row) => row.why === 'backoff after failure 1')).toBe(true);
    expect(Number(await page!.textContent('[data-testid=job-attempt]'))).toBeGreaterThanOrEqual(2);

    await page!.click('[data-testid=outage-off]');
    const answered = (row: Row | undefined): boolean => row?.kind === 'ok' || row?.kind === 'not-modified';
    await waitFor(async () => answered((await rowsOf(id!)).at(-1)), 'a success after the outage');
    expect(await page!.textContent('[data-testid=job-attempt]')).toBe('0');
    // The server never saw this client come back before its Retry-After.
    expect((await stats(id!)).ignoredRetryAfter).toBe(0);
  });

  it('sends nothing while the page is hidden, and the first request after it becomes visible goes out at once', async () => {
    await open('jobs=600000&interval=1000');
    await waitFor(async () => (await jobIds()).length === 1, 'the job card');
    const [id] = await jobIds();
    await waitFor(async () => (await rowsOf(id!)).filter((row) => row.kind === 'ok' || row.kind === 'not-modified').length >= 2, 'two answers');

    await setHidden(true);
    await waitFor(async () => (await rowsOf(id!)).some((row) => row.kind === 'paused'), 'the pause');
    const whileHidden = (await stats(id!)).requests;
    await new Promise((resolve) => setTimeout(resolve, 3000)); // three intervals
    expect((await stats(id!)).requests).toBe(whileHidden);

    const shownAt = await page!.evaluate(() => Date.now());
    await setHidden(false);
    await waitFor(async () => (await stats(id!)).requests === whileHidden + 1, 'the request after visible');
    const rows = await rowsOf(id!);
    const paused = rows.findIndex((row) => row.kind === 'paused');
    expect(rows.slice(paused).map((row) => row.kind)).toEqual(expect.arrayContaining(['paused', 'resumed']));
    const firstAfter = rows.find((row) => row.n > 0 && row.at >= shownAt)!;
    const resumed = rows.slice(paused).find((row) => row.kind === 'resumed')!;
    // Sent on the visibilitychange itself: a poller that waited another interval would be 1000 ms late. Timed from
    // the page's own `resume` event, not from the test's call to show it: a loaded machine's delay in between is not
    // the poller's.
    expect(resumed.at).toBeGreaterThanOrEqual(shownAt);
    expect(firstAfter.at - resumed.at).toBeLessThan(1000);
    expect(rows.filter((row) => row.n > 0 && row.at > rows[paused]!.at && row.at < shownAt)).toEqual([]);
  });

  it('the Retry button of useFetchWithRetry works after a failure', async () => {
    await open('jobs=600000&interval=1000&backoff=50');
    await waitFor(async () => !(await page!.isDisabled('[data-testid=retry-fetch]')), 'the snapshot job');
    await page!.click('[data-testid=errors-on]');
    await waitFor(async () => (await page!.textContent('[data-testid=api-health]')) === 'API misbehaving', 'the switch');
    await page!.click('[data-testid=retry-fetch]');
    await waitFor(async () => (await page!.$('[data-testid=retry-error]')) !== null, 'giving up');
    expect(await page!.textContent('[data-testid=retry-error]')).toBe('Gave up after 4 of 4 attempts');
    expect(await page!.textContent('[data-testid=retry-log]')).toContain('attempt 3 failed');

    await page!.click('[data-testid=errors-off]');
    await waitFor(async () => (await page!.textContent('[data-testid=api-health]')) === 'API healthy', 'the switch');
    await page!.click('[data-testid=retry-button]');
    await waitFor(async () => (await page!.$('[data-testid=retry-data]')) !== null, 'the snapshot');
    expect(await page!.textContent('[data-testid=retry-data]')).toMatch(/^Job #\d+ is (queued|running) \(\d+%\)$/);
    // The success box lists no failure of the try that gave up: Retry started a clean log.
    expect(await page!.$('[data-testid=retry-log]')).toBeNull();
  });

  it('a 404 says why no retry will help, and offers none', async () => {
    const errors = await open('jobs=600000&interval=1000&backoff=50');
    await page!.click('[data-testid=retry-fetch-missing]');
    await waitFor(async () => (await page!.$('[data-testid=retry-error]')) !== null, 'the 404');
    expect(await page!.textContent('[data-testid=retry-error]')).toBe('HTTP 404: not retried');
    expect(await page!.textContent('[data-testid=retry-why]')).toMatch(/no such job: asking again would get the same 404/);
    expect(await page!.$('[data-testid=retry-button]')).toBeNull();
    expect(await page!.$('[data-testid=retry-log]')).toBeNull(); // never retried
    expect(errors).toEqual([]);
  });

  it('with the default jobs, each switch draws the answers its label promises', async () => {
    const errors = await open('');
    await waitFor(async () => (await jobIds()).length === 3, 'the three default jobs');
    /** Log rows of every card since `since` (epoch ms). */
    const rowsSince = async (since: number): Promise<Row[]> => {
      const all = await Promise.all((await jobIds()).map((id) => rowsOf(id)));
      return all.flat().filter((row) => row.n > 0 && row.at >= since);
    };
    const expectAfter = async (id: string, off: string, what: string, seen: (row: Row) => boolean): Promise<void> => {
      const since = await page!.evaluate(() => Date.now());
      await page!.click(`[data-testid=${id}]`);
      await waitFor(async () => (await rowsSince(since)).some(seen), `${what} after ${id}`, 15_000);
      await page!.click(`[data-testid=${off}]`);
      await waitFor(async () => (await page!.textContent('[data-testid=api-health]')) === 'API healthy', 'the API to be healthy again');
    };
    await expectAfter('outage-retry-after', 'outage-off', 'a 503 paced by Retry-After', (row) => row.result === '503' && row.why === 'Retry-After 2 s honoured');
    await expectAfter('outage-plain', 'outage-off', 'a 503 backed off', (row) => row.result === '503' && /^backoff after failure/.test(row.why ?? ''));
    await expectAfter('errors-on', 'errors-off', 'a 500', (row) => row.result === '500');
    await expectAfter('rate-1', 'rate-off', 'a 429', (row) => row.result === '429');
    await expectAfter('slow-on', 'slow-off', 'an answer taking 1.5 s', (row) => row.ms !== undefined && row.ms >= 1500);
    expect(errors).toEqual([]);
  });

  it('the log counts a line that repeats instead of adding it again (no wall of "cooldown 6 ms")', () => {
    let rows: LogRow[] = [];
    rows = appendEvent(rows, { type: 'request', attempt: 1, conditional: false }, 0);
    rows = appendEvent(rows, { type: 'response', status: 200, ms: 20 }, 20);
    for (const delay of [2000, 6, 6, 5, 6]) rows = appendEvent(rows, { type: 'cooldown', delay, at: 100 + delay, origin: 'http://127.0.0.1' }, 100);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ kind: 'cooldown', count: 5, wait: 2000 });
    rows = appendEvent(rows, { type: 'request', attempt: 1, conditional: true }, 2100);
    rows = appendEvent(rows, { type: 'cooldown', delay: 6, at: 2106, origin: 'http://127.0.0.1' }, 2100);
    expect(rows).toHaveLength(4); // a request in between: a new line
    expect(rows[3]!.count).toBeUndefined();
  });

  it('Try now skips the wait in progress of useFetchWithRetry', async () => {
    await open('jobs=600000&interval=1000&backoff=5000');
    await waitFor(async () => !(await page!.isDisabled('[data-testid=retry-fetch]')), 'the snapshot job');
    await page!.click('[data-testid=outage-plain]');
    await waitFor(async () => (await page!.textContent('[data-testid=api-health]')) === 'API misbehaving', 'the switch');
    // The first attempt fails after this click, and its backoff waits at least 5 s from then.
    const fetchClickedAt = Date.now();
    await page!.click('[data-testid=retry-fetch]');
    await waitFor(async () => (await page!.$('[data-testid=retry-countdown]')) !== null, 'the first wait');
    expect(await page!.textContent('[data-testid=retry-attempt]')).toBe('Attempt 1 of 4 failed');
    // 5 to 6.25 s, shown rounded up, read a moment later: 5, 6 or 7 s.
    expect(await page!.textContent('[data-testid=retry-countdown]')).toMatch(/^Next try in [5-7] s$/);
    await page!.click('[data-testid=retry-now]');
    // The backoff would wait 5 to 6.25 s after the first failure, itself after the first click:
    // seen failed less than 5 s after that click, the second attempt skipped the wait. (Timed from
    // that click, not from this one: the bound is then exact, and a slow machine's time between the
    // two clicks is not taken from the second attempt's budget.)
    await waitFor(async () => (await page!.textContent('[data-testid=retry-attempt]')) === 'Attempt 2 of 4 failed', 'attempt 2');
    const sinceFetchClick = Date.now() - fetchClickedAt;
    expect(sinceFetchClick, `attempt 2 failed ${sinceFetchClick} ms after the first click: the wait was not skipped`).toBeLessThan(5000);
    expect(await page!.textContent('[data-testid=retry-countdown]')).toMatch(/^Next try in (1[0-3]|9) s$/);
  });
});
