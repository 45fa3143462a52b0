import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SeenRequest } from '../../helpers/server.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { json, startApiServer, type ApiServer } from './api-server.js';
import { buildPage, type Framework } from './build-page.js';
import type { Config } from './pages/harness.js';

// One adapter in Debian's Chromium: its page built with Vite, served with a
// scripted API on 127.0.0.1 by this test; what the API received is read from
// the server, what the page showed from the DOM (and every value it ever
// showed, recorded by a MutationObserver in the page). Offline is real
// (`context.setOffline`); visibility is emulated in the page, since headless
// Chromium reports every page visible (see ../playground.test.ts). The
// operation panel (`usePollOperation`, `createPollOperation`) runs a POST
// answered 202 with an Operation-Location, its monitor, and its result.

const base = (): Config => ({
  poll: { url: null, interval: 200, retries: 3, backoffMs: 200 },
  fetch: { url: null, retries: 3, backoffMs: 200 },
  operation: { url: null, interval: 200, retries: 3 },
});

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
    /** The operation's start (a POST answered 202), its monitor and its result, each this test's own. */
    const operation = () => ({ start: path('o'), monitor: path('om'), result: path('or') });
    /** The 202 naming the monitor, with a Retry-After (s) when given. */
    const accepted = (monitor: string, retryAfter?: number) => json(202, {}, { 'operation-location': monitor, ...(retryAfter !== undefined && { 'retry-after': String(retryAfter) }) });
    const operationEvents = (): Promise<string[]> => page!.evaluate(() => window.operationEvents);
    /** ms from when `before`'s answer left the server to when `after` arrived there. */
    const gap = (before: SeenRequest, after: SeenRequest): number => api.timing(after).arrived - api.timing(before).answered!;

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
      for (const id of ['poll', 'fetch'] as const) {
        await waitFor(async () => (await attr(id, 'seconds')) !== '', `the ${id} countdown`);
        const [next, first] = [Number(await attr(id, 'next')), Number(await attr(id, 'seconds'))];
        const now = await page!.evaluate(() => Date.now());
        // The wait counted down is the server's: 30 s or more from the 429's answer (one machine, one clock).
        const answered = api.timing(api.requests(path(id === 'poll' ? 'p' : 'f'))[0]!).answered!;
        expect(next - answered).toBeGreaterThanOrEqual(30_000);
        // What is shown is the wait left, rounded up to the second, at some instant between that answer and this read
        // (however late a loaded machine reads it): never more than all of it, never less than what is left now.
        expect(first).toBeLessThanOrEqual(Math.ceil((next - answered) / 1000));
        expect(first).toBeGreaterThanOrEqual(Math.ceil((next - now) / 1000));
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
        // A countdown in whole seconds: each shown value less than the last (one less, unless the page stalled past a
        // second: the time left is read from the clock, never counted in ticks).
        shown.forEach((value, i) => i === 0 || expect(value).toBeLessThan(shown[i - 1]!));
        expect(shown.every(Number.isInteger)).toBe(true);
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

    it('operation: one start per mount, the first poll no sooner than its 202 asked, the progress shown, then the result', async () => {
      const { start, monitor, result } = operation();
      api.script(start, [accepted(monitor, 1)]);
      api.script(monitor, [json(200, { status: 'Running', percent: 40 }), json(200, { status: 'Running', percent: 80 }), json(200, { status: 'Succeeded', resourceLocation: result })]);
      api.script(result, [json(200, { rows: 42 })]);
      await open((c) => (c.operation.url = start));
      await waitFor(statusIs('operation', 'done'), 'the operation to finish');
      await pause(500);
      // One start, under React's <StrictMode> too (its mount, unmount and remount): a POST with its body and a key.
      const starts = api.requests(start);
      expect(starts.map((r) => r.method)).toEqual(['POST']);
      expect(starts[0]!.body).toBe('{"month":"2025-01"}');
      expect(starts[0]!.headers['content-type']).toBe('application/json');
      expect(starts[0]!.headers['idempotency-key']).toMatch(/\S/);
      const polls = api.requests(monitor);
      expect(polls.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
      // The polls carry neither the start's body headers nor its key.
      for (const poll of polls) expect([poll.headers['content-type'], poll.headers['idempotency-key']]).toEqual([undefined, undefined]);
      // Retry-After: 1 on the 202, measured at the server from when it left.
      expect(gap(starts[0]!, polls[0]!)).toBeGreaterThanOrEqual(1000);
      expect(api.requests(result).map((r) => r.method)).toEqual(['GET']);
      expect(await attr('operation', 'data')).toBe('{"rows":42}');
      expect(await attr('operation', 'error')).toBe('');
      const bodies = ['{"status":"Running","percent":40}', '{"status":"Running","percent":80}', `{"status":"Succeeded","resourceLocation":"${result}"}`];
      expect(await seen('operation', 'progress')).toEqual(bodies);
      expect(await seen('operation', 'data')).toEqual(['{"rows":42}']);
      // Each body of the monitor shown in turn, all before the result.
      const trail = (await page!.evaluate(() => window.trail)).filter((entry) => entry.startsWith('operation:'));
      const order = [...bodies.map((body) => `data-progress=${body}`), 'data-data={"rows":42}'].map((entry) => trail.indexOf(`operation:${entry}`));
      expect(order.filter((index) => index < 0)).toEqual([]);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(await seen('operation', 'status')).not.toContain('error');
    });

    it('operation: a failed operation is shown as an error, the OperationFailedError with what the server said; no result is fetched', async () => {
      const { start, monitor, result } = operation();
      const failed = { status: 'Failed', error: { code: 'BadArgument', message: 'The disk name is invalid' }, resourceLocation: result };
      api.script(start, [accepted(monitor)]);
      api.script(monitor, [json(200, { status: 'Running', percent: 10 }), json(200, failed)]);
      api.script(result, [json(200, { rows: 1 })]);
      await open((c) => (c.operation.url = start));
      await waitFor(statusIs('operation', 'error'), 'the operation to fail');
      expect(await attr('operation', 'error')).toBe('OperationFailedError');
      expect(await attr('operation', 'failed')).toBe('failed');
      expect(await attr('operation', 'message')).toBe(`The operation at ${api.url}${monitor} failed: BadArgument: The disk name is invalid`);
      expect(await attr('operation', 'progress')).toBe(JSON.stringify(failed));
      expect(await attr('operation', 'data')).toBe('');
      await pause(500);
      expect(api.requests(start)).toHaveLength(1);
      expect(api.requests(monitor)).toHaveLength(2);
      expect(api.requests(result)).toEqual([]);
    });

    it('operation: Stop during the wait its 202 asked for: idle, and nothing more is sent, not even once the wait is over', async () => {
      const { start, monitor } = operation();
      api.script(start, [accepted(monitor, 2)]);
      api.script(monitor, [json(200, { status: 'Running' })]);
      await open((c) => (c.operation.url = start));
      // The page's onEvent got the wait before the first poll: the start is answered, the monitor not yet asked.
      await waitFor(async () => (await operationEvents()).includes('wait'), 'the wait before the first poll');
      await page!.click('[data-testid=operation-stop]');
      await waitFor(statusIs('operation', 'idle'), 'the operation to stop');
      // A stop that came after the wait would prove nothing: a machine too loaded to stop within 2 s fails loudly.
      if ((await operationEvents()).includes('request')) throw new Error('the stop came after the wait was over');
      // Until the wait asked is over (2 s from when the 202 left), and a second more for a loaded machine.
      await pause(api.timing(api.requests(start)[0]!).answered! + 3000 - Date.now());
      expect(api.requests(start)).toHaveLength(1);
      expect(api.requests(monitor)).toEqual([]);
      expect(await operationEvents()).not.toContain('request');
      expect(await attr('operation', 'error')).toBe('');
      expect(await attr('operation', 'progress')).toBe('');
    });

    it('operation: unmounting during a poll of the monitor aborts it, and nothing more is sent', async () => {
      const { start, monitor } = operation();
      api.script(start, [accepted(monitor)]);
      api.script(monitor, [json(200, { status: 'Running', percent: 50 }), api.hold]);
      await open((c) => (c.operation.url = start));
      await waitFor(() => api.requests(monitor).length === 2, 'the second poll');
      expect(await attr('operation', 'progress')).toBe('{"status":"Running","percent":50}');
      await page!.evaluate(() => window.harness.unmount());
      await waitFor(() => api.aborted(monitor).length === 1, 'the abort of the poll in flight');
      await pause(1000);
      expect(api.requests(start)).toHaveLength(1);
      expect(api.requests(monitor)).toHaveLength(2);
    });

    it('operation: a null url starts nothing; given one, the operation starts once', async () => {
      const { start, monitor } = operation();
      api.script(start, [accepted(monitor)]);
      api.script(monitor, [json(200, { status: 'Succeeded' })]);
      api.script(path('p'), [json(200, { status: 'done' })]);
      await open((c) => (c.poll.url = path('p')));
      await waitFor(statusIs('poll', 'done'), 'the poll to finish');
      expect(await attr('operation', 'status')).toBe('idle');
      expect(api.requests(start)).toEqual([]);
      await page!.evaluate((url) => window.harness.setUrls({ operation: url }), start);
      await waitFor(statusIs('operation', 'done'), 'the operation to finish');
      await pause(500);
      expect(api.requests(start).map((r) => r.method)).toEqual(['POST']);
      expect(api.requests(monitor)).toHaveLength(1);
      // No resourceLocation, no Location: the result is the final body.
      expect(await attr('operation', 'data')).toBe('{"status":"Succeeded"}');
    });

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
