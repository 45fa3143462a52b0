import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';
import { servePollitePage } from './helpers/pollite-page.js';

// Cooperating pollers in real headless Chromium: several pages of one
// persistent context are tabs of one profile (same origin, same Web Locks,
// same BroadcastChannel). Offline/online is real (`context.setOffline` flips
// navigator.onLine and fires the events). Visibility is emulated in the page
// (document.visibilityState redefined + a real `visibilitychange` event),
// because headless Chromium reports every page visible and has no CDP
// command to background one (playwright#2286).

/** pollite's core and `shareTabs` of `pollite/cooperate`, bundled for the browser as one module: `window.pollite` holds both. */
const polliteWithCooperate = (): Promise<string> =>
  build({
    stdin: { contents: "export * from './src/index.ts';\nexport { shareTabs } from './src/cooperate/index.ts';", resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);

interface TabLog {
  requests: number;
  updates: number[];
  events: string[];
  result?: string;
}

let server: TestServer;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let done = false;
let n = 0;
/** Each test polls its own path, so a straggler of the last test cannot count. */
let job = '/job/0';
const jobRequests = (): TestServer['requests'] => server.requests.filter((r) => r.path === job);

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('shareTabs() and the environment in Chromium', () => {
  beforeAll(async () => {
    const code = await polliteWithCooperate();
    server = await startServer((_req, res, seen) => {
      if (servePollitePage(seen.path, res, code)) return;
      if (seen.path.startsWith('/job/')) {
        n += 1;
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ status: done ? 'done' : 'running', n }));
        return;
      }
      res.writeHead(404);
      res.end();
    });
    chromium = await launchChromium();
  });

  afterEach(async () => {
    for (const page of chromium!.context.pages()) await page.close();
    await chromium!.context.setOffline(false);
    server.requests.length = 0;
    job = `/job/${Number(job.slice(5)) + 1}`;
    done = false;
    n = 0;
  });

  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  /** Opens a tab of the shared profile and starts `poll('/job', options)` in it, with `use: [shareTabs()]` when `tabs`. */
  async function openTab(options: { tabs?: true; interval: number }): Promise<Page> {
    const path = job;
    const page = await chromium!.context.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => 'pollite' in window);
    const tab = chromium!.context.pages().length;
    await page.evaluate(([url, opts, tabNumber]) => {
      const w = window as unknown as {
        pollite: typeof import('../../src/index.js') & Pick<typeof import('../../src/cooperate/index.js'), 'shareTabs'>;
        log: TabLog;
        setHidden(hidden: boolean): void;
      };
      w.log = { requests: 0, updates: [], events: [] };
      w.setHidden = (hidden) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
        document.dispatchEvent(new Event('visibilitychange'));
      };
      void w.pollite
        .poll<{ status: string; n: number }>(url, {
          interval: opts.interval,
          use: opts.tabs ? [w.pollite.shareTabs()] : [],
          // The Referer tells the server which tab sent a request; it is not part of what makes polls the same.
          init: { referrer: `/?tab=${tabNumber}` },
          isDone: (job) => job.status === 'done',
          onUpdate: (job) => void w.log.updates.push(job.n),
          onEvent: (event) => {
            if (event.type === 'request') w.log.requests += 1;
            else if (event.type === 'share') w.log.events.push(`${event.role}@${w.log.requests}`);
            else if (event.type === 'pause') w.log.events.push(`pause:${event.reason}`);
            else if (event.type === 'wake') w.log.events.push(`wake:${event.reason}`);
            else if (event.type === 'wait' && w.log.events.at(-1) === `leader@${w.log.requests}`) w.log.events.push(`takeover:${event.delay}`);
          },
        })
        .then(
          (job) => (w.log.result = job.status),
          (error: unknown) => (w.log.result = `error: ${String(error)}`),
        );
    }, [path, options, tab] as const);
    return page;
  }
  const logOf = (page: Page): Promise<TabLog> => page.evaluate(() => (window as unknown as { log: TabLog }).log);
  const logs = (pages: Page[]): Promise<TabLog[]> => Promise.all(pages.map(logOf));
  const setHidden = (page: Page, hidden: boolean): Promise<void> =>
    page.evaluate((h) => (window as unknown as { setHidden(hidden: boolean): void }).setHidden(h), hidden);
  const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> => {
    const started = Date.now();
    while (!(await condition())) {
      if (Date.now() - started > ms) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  /**
   * The new leader scheduled its first request at most one interval after the
   * last leader's last one (its own report, exact), and the server saw no
   * interval skipped (wall clock, so only a coarse bound: under two intervals).
   */
  async function expectTakeoverWithinOneInterval(candidates: Page[], count: number, interval: number): Promise<void> {
    // No takeover wait at all when the last leader's interval had already run out.
    const takeovers = (await logs(candidates)).flatMap((log) => log.events).filter((e) => e.startsWith('takeover:'));
    expect(takeovers.length).toBeLessThanOrEqual(1);
    for (const takeover of takeovers) expect(Number(takeover.slice('takeover:'.length))).toBeLessThanOrEqual(interval);
    expect(jobRequests()[count]!.at - jobRequests()[count - 1]!.at).toBeLessThan(2 * interval);
  }

  it('4 tabs: the server receives the requests of one tab, every tab gets every update', async () => {
    const tabs: Page[] = [];
    for (let i = 0; i < 4; i += 1) tabs.push(await openTab({ tabs: true, interval: 200 }));
    const base = jobRequests().length;
    await waitFor(() => jobRequests().length >= base + 6, 'six more requests');
    const before = await logs(tabs);
    const leaders = before.filter((log) => log.requests > 0);
    expect(leaders).toHaveLength(1);
    expect(leaders[0]!.events).toEqual(['leader@0']);
    expect(before.filter((log) => log.requests === 0).map((log) => log.events)).toEqual([['follower@0'], ['follower@0'], ['follower@0']]);
    // The lock the tabs hold and queue for is named by a SHA-256 of the poll: no URL or header in a name any script of the origin can list.
    const names = await tabs[0]!.evaluate(async () => {
      const state = await navigator.locks.query();
      return [...(state.held ?? []), ...(state.pending ?? [])].map((lock) => lock.name);
    });
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect([...new Set(names)]).toEqual([expect.stringMatching(/^pollite:[0-9a-f]{64}$/) as string]);
    done = true;
    await waitFor(async () => (await logs(tabs)).every((log) => log.result === 'done'), 'every tab done');
    const after = await logs(tabs);
    // The server saw one tab: every request carries the leader's Referer.
    expect(jobRequests()[0]!.headers.referer).toMatch(/\?tab=\d$/);
    expect(new Set(jobRequests().map((r) => r.headers.referer))).toEqual(new Set([jobRequests()[0]!.headers.referer]));
    expect(after.reduce((sum, log) => sum + log.requests, 0)).toBe(jobRequests().length);
    const last = jobRequests().length;
    for (const log of after) expect(log.updates.at(-1)).toBe(last); // every tab saw the final answer
    for (const log of after.filter((l) => l.requests === 0)) expect(log.updates.slice(-6)).toEqual([last - 5, last - 4, last - 3, last - 2, last - 1, last]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(jobRequests()).toHaveLength(last); // everyone stopped
  });

  it('closing the leading tab hands over within one interval', async () => {
    const interval = 1000;
    const tabs: Page[] = [];
    for (let i = 0; i < 3; i += 1) tabs.push(await openTab({ tabs: true, interval }));
    await waitFor(() => jobRequests().length >= 2, 'two requests');
    const leader = tabs[(await logs(tabs)).findIndex((log) => log.requests > 0)]!;
    const rest = tabs.filter((tab) => tab !== leader);
    // Told apart by Referer, not by a count read before the close: on a slow machine the leader's
    // next poll can still go out between that read and the page closing.
    const leaderReferer = jobRequests()[0]!.headers.referer;
    const fromRest = (): TestServer['requests'] => jobRequests().filter((r) => r.headers.referer !== leaderReferer);
    await leader.close();
    await waitFor(() => fromRest().length > 0, 'a request from the next leader');
    const count = jobRequests().indexOf(fromRest()[0]!);
    await expectTakeoverWithinOneInterval(rest, count, interval);
    await waitFor(() => jobRequests().length >= count + 3, 'two more requests');
    const restLogs = await logs(rest);
    expect(restLogs.filter((log) => log.requests > 0)).toHaveLength(1);
    // Nothing from the old leader since, and the new leader's count equals the server's whenever no
    // request is on its way (a tab counts a request as it sends it, the server as it arrives).
    expect(fromRest()).toHaveLength(jobRequests().length - count);
    await waitFor(
      async () => (await logs(rest)).reduce((sum, log) => sum + log.requests, 0) === jobRequests().length - count,
      "the new leader's count to match the server's",
    );
  });

  it('a leader that is hidden steps down and a visible tab takes over within one interval; it sends nothing while hidden', async () => {
    const interval = 1000;
    const tabs: Page[] = [];
    for (let i = 0; i < 2; i += 1) tabs.push(await openTab({ tabs: true, interval }));
    await waitFor(() => jobRequests().length >= 2, 'two requests');
    const index = (await logs(tabs)).findIndex((log) => log.requests > 0);
    const [leader, other] = [tabs[index]!, tabs[1 - index]!];
    const count = jobRequests().length;
    await setHidden(leader, true);
    await waitFor(() => jobRequests().length > count, 'a request from the visible tab');
    await expectTakeoverWithinOneInterval([other], count, interval);
    const hiddenRequests = (await logOf(leader)).requests;
    await waitFor(() => jobRequests().length >= count + 3, 'more requests');
    expect((await logOf(leader)).requests).toBe(hiddenRequests);
    expect((await logOf(other)).events).toContain('leader@0');
    // Still informed while hidden: the server counts a request before its answer is broadcast to
    // this tab, so wait for the broadcast rather than read it at once.
    await waitFor(async () => (await logOf(leader)).updates.at(-1) === jobRequests().length, 'the hidden tab to get the latest update');
  });

  it('offline: nothing is sent; online: polls at once, even mid-interval (real context.setOffline)', async () => {
    const tab = await openTab({ interval: 60_000 });
    await waitFor(() => jobRequests().length === 1, 'the first request');
    await chromium!.context.setOffline(true);
    // Let the page see it before going back online: toggled faster than the renderer
    // learns it (a loaded machine), the page would never see an 'online' event.
    await waitFor(async () => !(await tab.evaluate(() => navigator.onLine)), 'the page offline');
    await chromium!.context.setOffline(false);
    await waitFor(() => jobRequests().length === 2, 'the request on online');
    expect((await logOf(tab)).events).toEqual(['wake:online']);
    await tab.evaluate(() => (window as unknown as { log: TabLog }).log.events.splice(0));
    await chromium!.context.setOffline(true);
    // As above: the page must know it is offline before it is shown, or it polls on 'visible' first.
    await waitFor(async () => !(await tab.evaluate(() => navigator.onLine)), 'the page offline again');
    await setHidden(tab, true);
    await setHidden(tab, false); // visible while offline: waits for the network
    await waitFor(async () => (await logOf(tab)).events.includes('pause:offline'), 'pause:offline');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(jobRequests()).toHaveLength(2);
    await chromium!.context.setOffline(false);
    await waitFor(() => jobRequests().length === 3, 'the request on online');
    expect((await logOf(tab)).events).toEqual(['wake:visible', 'pause:offline']);
  });

  it('a page that becomes visible during an interval wait polls at once', async () => {
    const tab = await openTab({ interval: 60_000 });
    await waitFor(() => jobRequests().length === 1, 'the first request ' + JSON.stringify(server.requests.map((r) => r.path)));
    await setHidden(tab, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(jobRequests()).toHaveLength(1);
    await setHidden(tab, false);
    await waitFor(() => jobRequests().length === 2, 'the request on visible');
    expect((await logOf(tab)).events).toEqual(['wake:visible']);
  });
});
