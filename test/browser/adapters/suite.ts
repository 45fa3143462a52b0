import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { json, startApiServer, type ApiServer } from './api-server.js';
import { buildPage, type Framework } from './build-page.js';
import type { Config } from './pages/harness.js';

// One adapter in Debian's Chromium: its page built with Vite, served with a
// scripted API on 127.0.0.1 by this test; what the API received is read from
// the server, what the page showed from the DOM (and every value it ever
// showed, recorded by a MutationObserver in the page). Offline is real
// (`context.setOffline`); visibility is emulated in the page, since headless
// Chromium reports every page visible (see ../playground.test.ts).

const base = (): Config => ({ poll: { url: null, interval: 200, retries: 3, backoffMs: 200 }, fetch: { url: null, retries: 3, backoffMs: 200 } });

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function adapterSuite(framework: Framework): void {
  describe.skipIf(!hasChromium())(`pollite/${framework} in Chromium`, () => {
    let dir: string;
    let api: ApiServer;
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    let page: Page | undefined;
    let errors: string[] = [];
    let n = 0;
    /** A path of this test's own, so nothing of an earlier test can count. */
    const path = (name: string): string => `/api/${name}-${n}`;

    beforeAll(async () => {
      dir = await buildPage(framework);
      api = await startApiServer(dir);
      chromium = await launchChromium();
    });
    afterEach(async () => {
      await page?.close();
      page = undefined;
      await chromium.context.setOffline(false);
      expect(errors).toEqual([]);
      n += 1;
    });
    afterAll(async () => {
      await chromium?.close();
      await api?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function open(change: (config: Config) => void): Promise<Page> {
      const config = base();
      change(config);
      page = await chromium.context.newPage();
      errors = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${api.url}/`);
      await page.waitForFunction(() => 'harness' in window);
      await page.evaluate((c) => window.harness.mount(c), config);
      return page;
    }
    const attr = async (id: string, name: string): Promise<string> => (await page!.getAttribute(`[data-testid=${id}]`, `data-${name}`)) ?? '';
    /** Every non-empty value the attribute took, in order. */
    const seen = async (id: string, name: string): Promise<string[]> =>
      (await page!.evaluate((key) => window.seen[key] ?? [], `${id}:data-${name}`)).filter(Boolean);
    const statusIs = (id: string, status: string) => async () => (await attr(id, 'status')) === status;

    it('sends one request per mount', async () => {
      api.script(path('p'), [json(200, { status: 'done' })]);
      api.script(path('f'), [json(200, { id: 'f' })]);
      await open((c) => ((c.poll.url = path('p')), (c.fetch.url = path('f'))));
      await waitFor(statusIs('poll', 'done'), 'the poll to finish');
      await waitFor(statusIs('fetch', 'done'), 'the fetch to finish');
      await pause(500);
      expect(api.requests(path('p'))).toHaveLength(1);
      expect(api.requests(path('f'))).toHaveLength(1);
      expect(await attr('poll', 'attempt')).toBe('1');
      expect(await attr('fetch', 'data')).toBe('{"id":"f"}');
    });

    it('unmounting stops everything: the request in flight is aborted, no retry follows', async () => {
      api.script(path('p'), [api.hold]);
      api.script(path('f'), [json(503)]);
      await open((c) => ((c.poll.url = path('p')), (c.fetch.url = path('f')), (c.fetch.backoffMs = 300)));
      await waitFor(() => api.requests(path('p')).length === 1, 'the poll request');
      await waitFor(async () => (await attr('fetch', 'next')) !== '', 'the wait after the first failure');
      await page!.evaluate(() => window.harness.unmount());
      await waitFor(() => api.aborted(path('p')).length === 1, 'the abort of the request in flight');
      const fetched = api.requests(path('f')).length;
      await pause(1000);
      expect(api.requests(path('f'))).toHaveLength(fetched);
      expect(api.requests(path('p'))).toHaveLength(1);
    });

    it('a new url aborts the old request, and its answer is never rendered', async () => {
      for (const name of ['p1', 'f1']) api.script(path(name), [api.hold]);
      api.script(path('p2'), [json(200, { status: 'done', id: 'p2' })]);
      api.script(path('f2'), [json(200, { id: 'f2' })]);
      await open((c) => ((c.poll.url = path('p1')), (c.fetch.url = path('f1'))));
      await waitFor(() => api.requests(path('p1')).length === 1 && api.requests(path('f1')).length === 1, 'the first requests');
      await page!.evaluate((urls) => window.harness.setUrls(urls), { poll: path('p2'), fetch: path('f2') });
      await waitFor(async () => (await statusIs('poll', 'done')()) && (await statusIs('fetch', 'done')()), 'the new urls');
      await waitFor(() => api.aborted(path('p1')).length === 1 && api.aborted(path('f1')).length === 1, 'the aborts');
      expect(await seen('poll', 'data')).toEqual(['{"status":"done","id":"p2"}']);
      expect(await seen('fetch', 'data')).toEqual(['{"id":"f2"}']);
    });

    it('shows paused while the page is hidden and while offline, sending nothing', async () => {
      api.script(path('p'), [json(200, { status: 'running' })]);
      await open((c) => (c.poll.url = path('p')));
      await waitFor(() => api.requests(path('p')).length >= 2, 'two polls');
      expect(await attr('poll', 'paused')).toBe('false');
      const setHidden = (hidden: boolean): Promise<void> =>
        page!.evaluate((h) => {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
          document.dispatchEvent(new Event('visibilitychange'));
        }, hidden);
      await setHidden(true);
      await waitFor(async () => (await attr('poll', 'paused')) === 'true', 'the hidden pause');
      let sent = api.requests(path('p')).length;
      await pause(600);
      expect(api.requests(path('p'))).toHaveLength(sent);
      await setHidden(false);
      await waitFor(async () => (await attr('poll', 'paused')) === 'false', 'visible again');
      await waitFor(() => api.requests(path('p')).length > sent, 'a poll after the pause');
      await chromium.context.setOffline(true);
      await waitFor(async () => (await attr('poll', 'paused')) === 'true', 'the offline pause');
      sent = api.requests(path('p')).length;
      await pause(600);
      expect(api.requests(path('p'))).toHaveLength(sent);
      await chromium.context.setOffline(false);
      await waitFor(async () => (await attr('poll', 'paused')) === 'false', 'online again');
      await waitFor(() => api.requests(path('p')).length > sent, 'a poll once online');
      expect(await attr('poll', 'status')).toBe('polling');
    });

    it('counts down a Retry-After wait, and Try now ends it at once', async () => {
      // A 429: its Retry-After cools down only its own route, so the two do not hold each other.
      api.script(path('p'), [json(429, {}, { 'retry-after': '30' }), json(200, { status: 'done' })]);
      api.script(path('f'), [json(429, {}, { 'retry-after': '30' }), json(200, { id: 'f' })]);
      await open((c) => ((c.poll.url = path('p')), (c.fetch.url = path('f'))));
      for (const id of ['poll', 'fetch']) {
        await waitFor(async () => (await attr(id, 'seconds')) !== '', `the ${id} countdown`);
        const [next, first] = [Number(await attr(id, 'next')), Number(await attr(id, 'seconds'))];
        const now = await page!.evaluate(() => Date.now());
        // Never more than the wait left, rounded up to the second.
        expect(first).toBeLessThanOrEqual(Math.ceil((next - now) / 1000) + 1);
        expect(first).toBeGreaterThanOrEqual(29);
        expect(await attr(id, 'attempt')).toBe('1');
        // The server paced it: not a failure, and not shown as one.
        expect(await attr(id, 'paced')).toBe('true');
        expect(await attr(id, 'line')).toMatch(/^Busy: the server asked us to wait: next try in \d+ s$/);
      }
      await waitFor(async () => Number(await attr('poll', 'seconds')) < Number((await seen('poll', 'seconds'))[0]), 'a tick');
      await page!.click('[data-testid=poll-retry-now]');
      await page!.click('[data-testid=fetch-retry-now]');
      await waitFor(async () => (await statusIs('poll', 'done')()) && (await statusIs('fetch', 'done')()), 'both to finish');
      expect(api.requests(path('p'))).toHaveLength(2);
      expect(api.requests(path('f'))).toHaveLength(2);
      for (const id of ['poll', 'fetch']) {
        expect(await attr(id, 'seconds')).toBe('');
        expect(await attr(id, 'paced')).toBe('false');
        expect((await seen(id, 'line')).filter((line) => !line.startsWith('Busy'))).toEqual([]);
        const shown = (await seen(id, 'seconds')).map(Number);
        // Each shown value one less than the last: a countdown, whole seconds.
        shown.forEach((value, i) => i === 0 || expect(value).toBe(shown[i - 1]! - 1));
      }
      expect(await attr('fetch', 'attempt')).toBe('2');
    });

    for (const id of ['poll', 'fetch'] as const) {
      it(`${id}: a 503 with Retry-After: 2 is shown as busy, never as a failure; a 503 without one as a failure`, async () => {
        // One view at a time: a 503 with Retry-After cools down the whole origin, so the other would wait with it.
        api.script(path(id), [json(503, {}, { 'retry-after': '2' }), json(503), json(200, id === 'poll' ? { status: 'done' } : { id })]);
        await open((c) => (c[id].url = path(id)));
        await waitFor(async () => (await attr(id, 'paced')) === 'true', 'the paced wait');
        expect(await attr(id, 'attempt')).toBe('1');
        await waitFor(statusIs(id, 'done'), 'the end');
        const lines = await seen(id, 'line');
        const firstFailed = lines.findIndex((line) => line.includes('failed'));
        expect(lines[0]).toMatch(/^Busy: the server asked us to wait: next try in [1-3] s$/);
        expect(firstFailed).toBeGreaterThan(0);
        expect(lines.slice(0, firstFailed).filter((line) => !line.startsWith('Busy: the server asked us to wait: '))).toEqual([]);
        // The poll's paced answer was not counted (attempt 1 failed); the fetch counts every attempt sent (attempt 2).
        const failed = id === 'poll' ? 'Attempt 1 of 4 failed: ' : 'Attempt 2 of 4 failed: ';
        expect(lines.slice(firstFailed).filter((line) => !line.startsWith(failed))).toEqual([]);
        // Paced once, then never again (a first 'false' is there when the framework set it after inserting the element).
        expect((await seen(id, 'paced')).join(' ')).toMatch(/^(false )?true false$/);
        expect(api.requests(path(id))).toHaveLength(3);
      });
    }

    it('Retry starts again from attempt 1 after an error', async () => {
      api.script(path('p'), [json(404), json(200, { status: 'done' })]);
      api.script(path('f'), [json(404), json(200, { id: 'f' })]);
      await open((c) => ((c.poll.url = path('p')), (c.fetch.url = path('f'))));
      await waitFor(async () => (await statusIs('poll', 'error')()) && (await statusIs('fetch', 'error')()), 'both to fail');
      expect(await attr('poll', 'error')).toBe('HttpError');
      expect(await attr('fetch', 'error')).toBe('HttpError');
      await page!.click('[data-testid=poll-retry]');
      await page!.click('[data-testid=fetch-retry]');
      await waitFor(async () => (await statusIs('poll', 'done')()) && (await statusIs('fetch', 'done')()), 'both to finish');
      expect(await attr('poll', 'attempt')).toBe('1');
      expect(await attr('fetch', 'attempt')).toBe('1');
      expect(await attr('fetch', 'error')).toBe('');
      expect(api.requests(path('p'))).toHaveLength(2);
      expect(api.requests(path('f'))).toHaveLength(2);
    });
  });
}
