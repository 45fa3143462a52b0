import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground } from '../../playground/build.js';
import { startPlayground, type Playground } from '../../playground/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';

// The playground's "Pollers that cooperate" panel in Debian's Chromium: 8
// pollers on one demo job, independent, sharing one loop (`use: [share()]`),
// or one loop across tabs (`use: [shareTabs()]`). What the demo API received is read
// from its own counters; the page's numbers are only compared with them.
//
// Most tests create each job themselves (`?cooperateJob=ID` makes Start watch
// it) and script it so that its body changes at every request (progress in 1%
// steps, faster than the interval): every answer is then a 200 and a poller's
// updates count its rounds of requests. One test opens the page twice and
// presses Start in each, as a person would: the second tab follows the first
// tab's job, which the first names when asked over a BroadcastChannel.

/** What the panel shows, from the data attributes of its summary. */
interface Summary {
  job: string;
  mode: string;
  sent: number;
  updates: number[];
  finished: number;
  role?: string;
  followed: boolean;
}

const INTERVAL = 150;
/** With 1% steps a 3 s job's body changes every 30 ms, well within an interval. */
const SHORT_JOB = { duration: 3000, outcome: 'done', step: 1 } as const;

let dir: string;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let playground: Playground | undefined;

const requestsFor = (id: string): number => playground!.demo.api.stats(id)!.requests;
const notModifiedFor = (id: string): number => playground!.demo.api.stats(id)!.notModified;

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Opens the playground at `?interval=…`; the returned list collects the page's errors. */
async function openTab(interval = INTERVAL): Promise<{ page: Page; errors: string[] }> {
  const page = await chromium!.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // jobs= starts one long job in the jobs panel, on its own id: it never touches the job under test.
  await page.goto(`${playground!.url}?jobs=600000&interval=${interval}`);
  return { page, errors };
}

/**
 * Chooses `mode`, then has Start watch the job `job()` names (`?cooperateJob=`, which Start reads) and clicks it.
 * The job is created only then, so that slow page loads and clicks on a busy machine do not eat its time.
 */
async function start(page: Page, mode: 'independent' | 'share' | 'tabs', job: () => string): Promise<string> {
  await page.click(`[data-testid=cooperate-mode-${mode}]`);
  await waitFor(async () => (await page.getAttribute(`[data-testid=cooperate-mode-${mode}]`, 'aria-pressed')) === 'true', `mode ${mode}`);
  const id = job();
  await page.evaluate((given) => {
    const url = new URL(location.href);
    url.searchParams.set('cooperateJob', given);
    history.replaceState(null, '', url);
  }, id);
  await page.click('[data-testid=cooperate-start]');
  await waitFor(async () => (await summary(page))?.job === id, `the panel to watch job ${id}`);
  return id;
}

async function summary(page: Page): Promise<Summary | undefined> {
  const found = await page.$('[data-testid=cooperate-summary]');
  if (!found) return undefined;
  const d = await found.evaluate((item) => ({ ...(item as HTMLElement).dataset }));
  return {
    job: d.job!,
    mode: d.mode!,
    sent: Number(d.sent),
    updates: d.updates!.split(' ').map(Number),
    finished: Number(d.finished),
    followed: d.followed === 'true',
    ...(d.role === undefined ? {} : { role: d.role }),
  };
}
const summaryOf = async (page: Page): Promise<Summary> => (await summary(page))!;

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('the playground cooperate panel in Chromium', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pollite-playground-cooperate-'));
    await buildPlayground(dir);
    chromium = await launchChromium();
  });

  afterEach(async () => {
    for (const page of chromium!.context.pages()) await page.close();
    await playground?.close();
    playground = undefined;
  });

  afterAll(async () => {
    await chromium?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the 8 pollers of `mode` on a fresh short job until all 8 have finished. */
  async function runToTheEnd(mode: 'independent' | 'share'): Promise<{ id: string; seen: Summary; requests: number; notModified: number; errors: string[] }> {
    playground = await startPlayground(dir);
    const { page, errors } = await openTab();
    const id = await start(page, mode, () => playground!.demo.api.createJob(SHORT_JOB).id);
    await waitFor(async () => (await summary(page))?.finished === 8, 'all 8 pollers finished');
    const seen = await summaryOf(page);
    expect(seen.job).toBe(id);
    expect(seen.mode).toBe(mode);
    // Finished pollers send nothing more.
    const requests = requestsFor(id);
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL));
    expect(requestsFor(id)).toBe(requests);
    return { id, seen, requests, notModified: notModifiedFor(id), errors };
  }

  it('share() — the API receives one request per round for 8 pollers, and all 8 get every update and finish', async () => {
    const { seen, requests, notModified, errors } = await runToTheEnd('share');
    const rounds = Math.max(...seen.updates);
    expect(rounds).toBeGreaterThanOrEqual(5); // enough rounds for the ratio below to mean something
    // Every poller received every update: the same count, which is every 200 the API gave.
    expect(seen.updates).toEqual(Array<number>(8).fill(rounds));
    expect(rounds).toBe(requests - notModified);
    expect(requests).toBeLessThanOrEqual(rounds + 1);
    expect(seen.finished).toBe(8);
    expect(seen.sent).toBe(requests);
    expect(errors).toEqual([]);
  });

  it('independent — the API receives about 8 requests per round', async () => {
    const { seen, requests, notModified, errors } = await runToTheEnd('independent');
    const rounds = Math.max(...seen.updates);
    expect(rounds).toBeGreaterThanOrEqual(5);
    expect(requests).toBeGreaterThanOrEqual(6 * rounds);
    // Every 200 the API sent reached a poller as an update, and every update came from a request. Not exact: the 8
    // pollers share Chromium's HTTP cache, which revalidates a request without If-None-Match itself and turns the
    // API's 304 into the cached 200 (a newer body than that poller had seen).
    const updates = seen.updates.reduce((sum, n) => sum + n, 0);
    expect(updates).toBeGreaterThanOrEqual(requests - notModified);
    expect(updates).toBeLessThanOrEqual(requests);
    expect(seen.finished).toBe(8);
    expect(seen.sent).toBe(requests);
    expect(errors).toEqual([]);
  });

  it('two tabs, Start in each: the second follows the first tab\'s job, and only the leader sends (no ?cooperateJob)', async () => {
    playground = await startPlayground(dir);
    const first = await openTab(250);
    const second = await openTab(250);
    for (const tab of [first, second]) {
      await tab.page.click('[data-testid=cooperate-mode-tabs]');
      await waitFor(async () => (await tab.page.getAttribute('[data-testid=cooperate-mode-tabs]', 'aria-pressed')) === 'true', 'mode tabs');
    }
    await first.page.click('[data-testid=cooperate-start]');
    await waitFor(async () => (await summary(first.page)) !== undefined, 'the first tab to start');
    const { job } = await summaryOf(first.page);
    expect((await summaryOf(first.page)).followed).toBe(false); // nobody else watched a job: it created one
    await second.page.click('[data-testid=cooperate-start]');
    await waitFor(async () => (await summary(second.page)) !== undefined, 'the second tab to start');
    const followed = await summaryOf(second.page);
    expect(followed.job).toBe(job);
    expect(followed.followed).toBe(true);
    expect(await second.page.textContent('[data-testid=cooperate-summary]')).toContain('the job another tab watches');
    await waitFor(async () => (await Promise.all([summaryOf(first.page), summaryOf(second.page)])).every((s) => s.role !== undefined), 'both roles');
    const roles = (await Promise.all([summaryOf(first.page), summaryOf(second.page)])).map((s) => s.role);
    expect([...roles].sort()).toEqual(['follower', 'leader']);
    const leader = roles[0] === 'leader' ? first : second;
    await waitFor(() => requestsFor(job) >= 4, 'four requests');
    // The API received the leader's requests and nothing else.
    await waitFor(async () => (await summaryOf(leader.page)).sent === requestsFor(job), "the API's count to match the leader's");
    expect(first.errors).toEqual([]);
    expect(second.errors).toEqual([]);
  });

  it('shareTabs() — two tabs on one job: only the leader sends; closing it, the follower takes over within a few intervals', async () => {
    const interval = 250;
    playground = await startPlayground(dir);
    const first = await openTab(interval);
    const second = await openTab(interval);
    // Long enough to outlive the test; 1% steps every 250 ms, so once running the leader broadcasts a body at every request.
    const id = await start(first.page, 'tabs', () => playground!.demo.api.createJob({ duration: 25_000, outcome: 'done', step: 1 }).id);
    await start(second.page, 'tabs', () => id);
    const both = (): Promise<Summary[]> => Promise.all([summaryOf(first.page), summaryOf(second.page)]);
    await waitFor(async () => (await both()).every((s) => s.role !== undefined), 'both tabs to know their role');
    await waitFor(() => requestsFor(id) >= 8, 'eight requests');

    const roles = (await both()).map((s) => s.role);
    expect([...roles].sort()).toEqual(['follower', 'leader']);
    const [leader, follower] = roles[0] === 'leader' ? [first, second] : [second, first];
    // The API received the leader's requests and nothing else: equal whenever no request is in flight.
    await waitFor(async () => (await summaryOf(leader.page)).sent === requestsFor(id), "the API's count to match the leader's");
    const before = await summaryOf(follower.page);
    expect(before.sent).toBe(0);
    expect(before.updates.every((n) => n > 0 && n === before.updates[0])).toBe(true); // informed by the leader's broadcasts

    const atClose = requestsFor(id);
    await leader.page.close();
    // Counted from the tab's end (its lock is released then), not from asking Playwright to close it: a loaded
    // machine may take a second over that alone.
    const closedAt = Date.now();
    await waitFor(
      async () => (await summaryOf(follower.page)).role === 'leader' && (await summaryOf(follower.page)).sent > 0 && requestsFor(id) > atClose,
      'the follower to lead and its requests to reach the API',
      3000,
    );
    const tookOver = Date.now() - closedAt;
    // A few intervals: the lock is released when the page goes, and the new leader keeps the cadence.
    expect(tookOver).toBeLessThan(6 * interval);
    await waitFor(() => requestsFor(id) >= atClose + 4, 'requests to keep reaching the API');
    // From now on the API's count grows by the new leader's requests only; at close, the old leader may have had
    // one request on its way that the API counted after `atClose` was read.
    await waitFor(async () => {
      const sent = (await summaryOf(follower.page)).sent;
      const got = requestsFor(id) - atClose;
      return got === sent || got === sent + 1;
    }, "the API's count to match the new leader's");
    const after = await summaryOf(follower.page);
    expect(after.role).toBe('leader');
    expect(first.errors).toEqual([]);
    expect(second.errors).toEqual([]);
  });
});
