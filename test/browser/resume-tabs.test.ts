import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from './helpers/chromium.js';
import { startTabsJobServer, type Seen, type TabsJobServer } from './resume-tabs/job-server.js';
import type { TabLog } from './resume-tabs/tab-page.js';
import { untilTrue } from './resume-reload/waits.js';

// Issue 37's "two tabs resuming the same checkpoint", in Chromium: pages of
// one browser context (tabs of one profile: one localStorage, one Web Locks
// manager, one BroadcastChannel) run `poll` of one job with
// `use: [checkpoint({ store: webStorage(localStorage), key }), shareTabs()]`
// (./resume-tabs/tab-page.ts). Asserted on the server's side: which tab sent
// each request (its page's Referer), when it arrived against the wait the
// server had asked for, and how far apart; and on the checkpoint's: who
// wrote it, and that no write ever went back (to an earlier wait or an older
// body). No wall-clock tolerance: "no earlier than asked" and "one request
// per interval" are exact; the margins (the waits' length, the time allowed
// to wait for something) are about a loaded machine only.

/** The interval of the polls, ms. */
const INTERVAL = 500;
/** The server's Retry-After, s: long enough that a loaded machine still reloads within it (checked, loudly). */
const WAIT = 5;

const PAGE = '<!doctype html><meta charset="utf-8"><title>pollite resume tabs</title><body><script type="module" src="/app.js"></script></body>';

describe.skipIf(!hasChromium())('pollite/resume with shareTabs() in Chromium: two tabs resume one checkpoint', () => {
  let server: TabsJobServer;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  const errors: string[] = [];
  let job = '';
  let count = 0;

  beforeAll(async () => {
    const bundle = await build({ entryPoints: ['test/browser/resume-tabs/tab-page.ts'], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    server = await startTabsJobServer({ '/': ['text/html', PAGE], '/app.js': ['text/javascript', bundle.outputFiles[0]!.text] });
    chromium = await launchChromium();
  });
  afterEach(async () => {
    for (const page of chromium.context.pages()) await page.close();
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  /** Opens a tab named `tab` of this test's job. */
  async function open(tab: string, order = 'checkpoint-first'): Promise<Page> {
    const page = await chromium.context.newPage();
    page.on('pageerror', (error) => errors.push(`${tab}: ${error.message}`));
    await page.goto(`${server.url}/?tab=${tab}&job=${job}&interval=${INTERVAL}&order=${order}`);
    await page.waitForFunction(() => 'log' in window);
    return page;
  }
  const logOf = (page: Page): Promise<TabLog> => page.evaluate(() => (window as unknown as { log: TabLog }).log);
  const stored = (page: Page): Promise<{ notBefore?: number; data?: { n: number } } | null> =>
    page.evaluate((key) => {
      const text = localStorage.getItem(key);
      return text === null ? null : (JSON.parse(text) as { notBefore?: number; data?: { n: number } });
    }, `pollite:job:${job}`);
  const seen = (): Seen[] => server.seen();
  /** The requests that came before the server's wait was over: must stay empty. */
  const early = (): Seen[] => seen().filter((request) => request.at < request.notBefore);
  /** Arms a Retry-After on the next answer, and waits until the checkpoint holds that wait; returns the request that asked. */
  async function askWait(page: Page): Promise<Seen> {
    const from = seen().length;
    server.askWait(WAIT);
    await untilTrue(() => seen().length > from && seen()[from]!.answered !== undefined, 'the answer that asks a wait');
    const asked = seen()[from]!;
    await untilTrue(async () => ((await stored(page))?.notBefore ?? 0) >= asked.answered! + WAIT * 1000, 'the checkpoint to hold the wait');
    return asked;
  }
  /** Throws unless the server's wait is still running: what follows must fall within it, or the test proves nothing. */
  const withinWait = (what: string): void => {
    if (server.notBefore() <= Date.now()) throw new Error(`${what} came after the server's wait was over: the machine is too slow for this test to prove anything`);
  };
  /** Every gap between two requests from `from` on, ms. */
  const gaps = (from: number): number[] =>
    seen()
      .slice(from)
      .slice(1)
      .map((request, i) => request.at - seen()[from + i]!.at);

  /**
   * One tab polls alone; the server asks it to wait, and during that wait the page is reloaded as a second tab
   * opens: two tabs resume the same checkpoint. Both began their call before the saved wait was over (else the
   * test would prove nothing), and nothing was sent since.
   */
  async function resumeInTwoTabs(): Promise<{ tabs: [Page, Page]; asked: Seen; resumed: number }> {
    job = `tabs-${(count += 1)}`;
    server.job(job);
    const a = await open('a');
    await untilTrue(() => seen().length >= 2, 'two requests of the first tab');
    const asked = await askWait(a);
    withinWait('the reload');
    const [, b] = await Promise.all([a.reload(), open('b')]);
    await a.waitForFunction(() => 'log' in window);
    const resumed = seen().length;
    for (const page of [a, b]) expect((await logOf(page)).started).toBeLessThan(server.notBefore());
    expect(seen()[resumed - 1]).toBe(asked);
    return { tabs: [a, b], asked, resumed };
  }

  it('one tab polls for both and honours the saved wait; the other gets every body and takes over no sooner than the pending wait; the checkpoint never goes back, and is deleted at the end', async () => {
    // 1. Two tabs resume one checkpoint during the wait it saved.
    const { tabs, asked, resumed } = await resumeInTwoTabs();
    const notBefore = server.notBefore();

    // 2. Exactly one tab polls, no sooner than the saved wait, one request per interval; both get every body.
    await untilTrue(() => seen().length >= resumed + 6, 'six requests after the resume', 30_000);
    const logs = await Promise.all(tabs.map(logOf));
    const leading = logs.findIndex((log) => log.requests > 0);
    expect(logs.filter((log) => log.requests > 0)).toHaveLength(1);
    expect(logs[leading]!.roles).toEqual(['leader']);
    expect(logs[1 - leading]!.roles).toEqual(['follower']);
    const [leader, follower] = [tabs[leading]!, tabs[1 - leading]!];
    const [leaderName, followerName] = [logs[leading]!.tab, logs[1 - leading]!.tab];
    expect(new Set(seen().slice(resumed).map((request) => request.tab))).toEqual(new Set([leaderName]));
    expect(seen()[resumed]!.at).toBeGreaterThanOrEqual(asked.answered! + WAIT * 1000);
    // Conditional on the kept body's ETag: the leader resumed with it.
    expect(seen()[resumed]!.ifNoneMatch).toBe(`"${asked.n}"`);
    for (const gap of gaps(resumed)) expect(gap).toBeGreaterThanOrEqual(INTERVAL);
    // Each shows the kept body before any request, then every body the server sent.
    const served = (from: number): number[] => seen().slice(from).map((request) => request.n);
    for (const page of tabs) {
      await untilTrue(async () => (await logOf(page)).updates.at(-1) === seen().at(-1)!.n, 'every tab to get the latest body');
      const { updates } = await logOf(page);
      expect(updates).toEqual([asked.n, ...served(resumed).slice(0, updates.length - 1)]);
    }

    // 3. The server asks the leader to wait, and the leader closes during that wait: the other tab takes over, no sooner.
    const second = await askWait(leader);
    withinWait('closing the leader');
    const leaderLog = await logOf(leader);
    await leader.close();
    const closed = seen().length;
    expect(seen()[closed - 1]).toBe(second);
    await untilTrue(() => seen().length >= closed + 3, 'three requests of the tab that took over', 30_000);
    expect(new Set(seen().slice(closed).map((request) => request.tab))).toEqual(new Set([followerName]));
    expect(seen()[closed]!.at).toBeGreaterThanOrEqual(second.answered! + WAIT * 1000);
    // Not conditional: the last body it had came from the other tab, whose ETag it was not told.
    expect(seen()[closed]!.ifNoneMatch).toBeUndefined();
    for (const gap of gaps(closed)) expect(gap).toBeGreaterThanOrEqual(INTERVAL);
    expect((await logOf(follower)).roles).toEqual(['follower', 'leader']);

    // 4. The job ends: the call resolves in the tab left, its checkpoint is deleted, and nothing is sent after.
    server.finish();
    await untilTrue(async () => (await logOf(follower)).result !== undefined, 'the poll to end', 30_000);
    const last = await logOf(follower);
    expect(last.result).toBe('done');
    expect(last.updates).toEqual([asked.n, ...served(resumed)]);
    expect(await stored(follower)).toBeNull();
    const ended = seen().length;
    await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL));
    expect(seen()).toHaveLength(ended);
    expect(early()).toEqual([]);

    // 5. The checkpoint since the resume: written by the leading tab only, never back to an earlier wait or an
    //    older body (a tab that takes over writes what it was given, not what it found when it began), deleted last.
    const writes = [...leaderLog.writes, ...last.writes].sort((x, y) => x.at - y.at);
    console.log(
      `resume-tabs: tabs began ${notBefore - Math.max(...logs.map((log) => log.started))} ms before the saved wait ended; ` +
        `first request ${seen()[resumed]!.at - asked.answered!} ms, takeover ${seen()[closed]!.at - second.answered!} ms after a ${WAIT} s Retry-After; ` +
        `${ended - resumed} requests, ${writes.length} writes`,
    );
    expect(writes.filter((write) => write.role !== 'leader')).toEqual([]);
    const sets = writes.filter((write) => write.op === 'set');
    expect(sets.length).toBeGreaterThanOrEqual(ended - resumed - 1);
    for (let i = 1; i < sets.length; i += 1) {
      expect(sets[i]!.notBefore!).toBeGreaterThanOrEqual(sets[i - 1]!.notBefore!);
      expect(sets[i]!.n!).toBeGreaterThanOrEqual(sets[i - 1]!.n!);
    }
    expect(writes.at(-1)!.op).toBe('delete');
    expect(writes.filter((write) => write.op === 'delete')).toHaveLength(1);
  });

  it('the leader closes during the saved wait: the tab left takes over, waits out what is left of it once (not twice), and finishes the job', async () => {
    job = `tabs-${(count += 1)}`;
    server.job(job);
    // The first tab polls; the server asks it to wait; two more tabs open during that wait (both resume its checkpoint,
    // its wait included), and the first one closes: one of the two leads, holding the wait, and tells the other.
    const first = await open('a');
    await untilTrue(() => seen().length >= 2, 'two requests of the first tab');
    const asked = await askWait(first);
    withinWait('opening two more tabs');
    const tabs = [await open('b'), await open('c')];
    withinWait('closing the first tab');
    await first.close();
    const resumed = seen().length;
    expect(seen()[resumed - 1]).toBe(asked);
    await untilTrue(async () => (await Promise.all(tabs.map(logOf))).every((log) => log.roles.length === 1), 'a leader, and a follower told its wait');
    const logs = await Promise.all(tabs.map(logOf));
    const leading = logs.findIndex((log) => log.roles[0] === 'leader');
    expect(logs.map((log) => log.roles[0]).sort()).toEqual(['follower', 'leader']);
    const [leader, other] = [tabs[leading]!, tabs[1 - leading]!];
    withinWait('closing the leader');
    await leader.close();
    expect(seen()).toHaveLength(resumed);
    await untilTrue(() => seen().length >= resumed + 2, 'two requests of the tab that took over', 30_000);
    server.finish();
    await untilTrue(async () => (await logOf(other)).result !== undefined, 'the poll to end', 30_000);
    const log = await logOf(other);
    expect(log.result).toBe('done');
    expect(new Set(seen().slice(resumed).map((request) => request.tab))).toEqual(new Set([log.tab]));
    // No sooner than the saved wait, and conditional on the kept body (no other body came meanwhile).
    expect(seen()[resumed]!.at).toBeGreaterThanOrEqual(asked.answered! + WAIT * 1000);
    expect(seen()[resumed]!.ifNoneMatch).toBe(`"${asked.n}"`);
    expect(early()).toEqual([]);
    // Its checkpoint's hold and the handover's (what the leader told it) are one wait: at most one wait event
    // before its first request, the rest of it (none at all if the machine was so slow that the wait was over).
    const takeover = log.events.slice(log.events.indexOf('leader'));
    expect(takeover.slice(0, takeover.indexOf('request')).filter((event) => event.startsWith('wait')).length).toBeLessThanOrEqual(1);
    expect(log.updates).toEqual([asked.n, ...seen().slice(resumed).map((request) => request.n)]);
    expect(await stored(other)).toBeNull();
    console.log(`resume-tabs, leader closed during the saved wait: ${JSON.stringify(log.events.slice(0, 4))}; first request ${seen()[resumed]!.at - asked.answered!} ms after a ${WAIT} s Retry-After`);
  });

  it('`[shareTabs(), checkpoint(...)]`: refused with a TypeError naming `use`, before anything is sent', async () => {
    job = `tabs-${(count += 1)}`;
    server.job(job);
    const page = await open('a', 'share-first');
    await untilTrue(async () => (await logOf(page)).result !== undefined, 'the poll to end');
    expect((await logOf(page)).result).toMatch(/^error: TypeError: Expected `use` to be a list with `checkpoint\(\)` before `share\(\)` and `shareTabs\(\)`/);
    expect(seen()).toEqual([]);
    expect(await stored(page)).toBeNull();
  });
});
