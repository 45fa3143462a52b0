import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { startJobServer } from '../resume-reload/api-server.js';
import { checkpointOf, untilTrue, waitAsked } from '../resume-reload/waits.js';
import { buildPage, type Framework } from './build-page.js';

// Issue 37's proof for each framework adapter and for pollite/observe, in
// Chromium, for the two ways a component runs a job. The recipe of
// docs/frameworks.md: it starts the job (a POST with an Idempotency-Key and
// a checkpoint) and watches it (`usePoll`/`createPoll` with a checkpoint in
// `use`, keeping the last body). The operation hook (`?app=operation`):
// one call, `usePollOperation`/`createPollOperation`/`createOperationState`,
// with an Idempotency-Key and a checkpoint in `operation.resume`. The page
// is reloaded during a Retry-After wait and during a request, and the
// component that mounts with the saved state continues the same job: no
// second start, no request before the server's wait was over (gaps
// measured on the server from when its answer left), and the result shown.
// Each page is built with Vite from ./resume-pages/<framework>/.

/** The server's Retry-After, s: long enough that a loaded machine still reloads within it (`waitAsked` fails loudly if not). */
const WAIT = 3;

const SURFACES: Array<Framework | 'observe'> = ['react', 'vue', 'svelte', 'solid', 'observe'];

/** The operation hook of each surface. */
const OPERATION_CALL = { react: 'usePollOperation', vue: 'usePollOperation', svelte: 'createPollOperation', solid: 'createPollOperation', observe: 'createOperationState' } as const;

describe.skipIf(!hasChromium())('pollite/resume with the adapters in Chromium: a component reloaded mid-job', () => {
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    chromium = await launchChromium();
  });
  afterAll(async () => {
    await chromium?.close();
  });

  for (const surface of SURFACES) {
    describe(surface === 'observe' ? 'pollite/observe' : `pollite/${surface}`, () => {
      let dir: string;
      let server: Awaited<ReturnType<typeof startJobServer>>;
      beforeAll(async () => {
        dir = await buildPage(surface, 'resume-pages');
        server = await startJobServer({ dir });
      });
      afterAll(async () => {
        await server?.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('reloaded during the Retry-After wait and during a request: one start, nothing early, the kept job shown at once, the result shown', async () => {
        const name = `${surface}1`;
        const api = server.job({
          name,
          monitor: [
            { body: { status: 'running', progress: 10 }, retryAfter: WAIT, headers: { etag: '"v1"' } },
            'hold',
            { body: { status: 'done', progress: 100, result: 42 }, headers: { etag: '"v2"' } },
          ],
          result: null,
        });
        const running = JSON.stringify({ status: 'running', progress: 10 });
        const page: Page = await chromium.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const attr = async (name: string): Promise<string> => (await page.getAttribute('[data-testid=job]', `data-${name}`)) ?? '';
        const shownAt = (value: string): Promise<number | undefined> => page.evaluate((v) => window.shownAt?.[v], value);
        try {
          await page.goto(`${server.url}/?job=${name}`);

          // 1. Started, polled once (running, Retry-After: 3); reloaded during that wait, once the checkpoint holds it.
          await untilTrue(async () => (await attr('data')) === running, 'the first poll to be shown');
          const first = api.requests(api.paths.monitor)[0]!;
          await untilTrue(async () => ((await checkpointOf(page, `pollite:job:${name}`))?.notBefore ?? 0) >= first.at + WAIT * 1000, 'the checkpoint to hold the wait');
          waitAsked(api, 'the monitor');
          await page.reload();

          // 2. The component mounts with the saved state: the kept body at once, then a request no sooner than asked, conditional on it; held, and reloaded during it.
          await untilTrue(async () => (await shownAt(running)) !== undefined, 'the kept body to be shown after the reload');
          await untilTrue(() => api.requests(api.paths.monitor).length === 2, 'the poll after the wait');
          const second = api.requests(api.paths.monitor)[1]!;
          expect((await shownAt(running))!).toBeLessThanOrEqual(second.at);
          expect(second.headers['if-none-match']).toBe('"v1"');
          await page.reload();
          await untilTrue(() => api.aborted().length === 1, 'the held request to be aborted by the reload');

          // 3. Mounted again: the job continues to its end.
          await untilTrue(async () => (await attr('status')) === 'done' || (await attr('status')) === 'error', 'the job to end', 30_000);
          expect(await attr('error')).toBe('');
          expect(JSON.parse(await attr('data'))).toEqual({ status: 'done', progress: 100, result: 42 });

          const starts = api.requests(api.paths.start, 'POST');
          const monitor = api.requests(api.paths.monitor);
          expect(starts).toHaveLength(1);
          expect(starts[0]!.headers['idempotency-key']).toMatch(/\S/);
          expect(monitor).toHaveLength(3);
          expect(monitor[2]!.headers['if-none-match']).toBe('"v1"');
          expect(api.early()).toEqual([]);
          expect(second.gap).toBeGreaterThanOrEqual(WAIT * 1000);
          console.log(`resume-reload ${surface}: ${starts.length} start, ${monitor.length} monitor requests; gap after Retry-After: ${WAIT} → ${second.gap} ms`);
          // Both calls ended: their checkpoints are gone (the app's own note of its monitor is the app's).
          expect(await checkpointOf(page, `pollite:job:${name}`)).toBeNull();
          expect(await checkpointOf(page, `pollite:start:${name}`)).toBeNull();
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it('reloaded during the start request: sent again with the key it was sent with, never a new one, and the job finishes', async () => {
        const name = `${surface}2`;
        const api = server.job({ name, holdStarts: 1, monitor: [{ body: { status: 'done', progress: 100, result: 7 } }], result: null });
        const page: Page = await chromium.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const attr = async (name: string): Promise<string> => (await page.getAttribute('[data-testid=job]', `data-${name}`)) ?? '';
        try {
          await page.goto(`${server.url}/?job=${name}`);
          await untilTrue(() => api.requests(api.paths.start, 'POST').length === 1, 'the start request');
          // The key is in the store before the start is sent.
          expect((await checkpointOf(page, `pollite:start:${name}`))?.idempotencyKey).toBe(api.requests(api.paths.start, 'POST')[0]!.headers['idempotency-key']);
          await page.reload();
          await untilTrue(async () => (await attr('status')) === 'done' || (await attr('status')) === 'error', 'the job to end', 30_000);
          expect(await attr('start-error')).toBe('');
          expect(JSON.parse(await attr('data'))).toEqual({ status: 'done', progress: 100, result: 7 });
          const starts = api.requests(api.paths.start, 'POST');
          // Two start requests, one key: the first's answer was lost to the reload; a server that honours the key runs the job once.
          expect(starts).toHaveLength(2);
          expect(api.aborted()).toHaveLength(1);
          expect(starts[1]!.headers['idempotency-key']).toBe(starts[0]!.headers['idempotency-key']);
          expect(api.requests(api.paths.monitor)).toHaveLength(1);
          expect(await checkpointOf(page, `pollite:start:${name}`)).toBeNull();
          expect(await checkpointOf(page, `pollite:job:${name}`)).toBeNull();
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it(`${OPERATION_CALL[surface]}: reloaded during its 202's Retry-After and during a monitor request: one start, nothing early, the progress, then the result shown`, async () => {
        const name = `${surface}op1`;
        const api = server.job({
          name,
          startRetryAfter: WAIT,
          monitor: ['hold', { body: { status: 'Running', percent: 50 } }, { body: { status: 'Succeeded', resourceLocation: `/api/${name}/result` } }],
          result: { rows: 42 },
        });
        const page: Page = await chromium.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const attr = async (name: string): Promise<string> => (await page.getAttribute('[data-testid=job]', `data-${name}`)) ?? '';
        const stored = () => checkpointOf(page, `pollite:report:${name}`);
        try {
          await page.goto(`${server.url}/?app=operation&job=${name}`);

          // 1. Started, answered 202 with Retry-After: 3; reloaded during that wait, once the checkpoint names the monitor.
          await untilTrue(async () => (await stored())?.url?.endsWith(api.paths.monitor) === true, 'the checkpoint to name the monitor');
          waitAsked(api, 'the start');
          await page.reload();

          // 2. The operation mounts at its monitor, polled no sooner than asked; held, and reloaded during it.
          await untilTrue(() => api.requests(api.paths.monitor).length === 1, 'the first monitor request');
          await page.reload();
          await untilTrue(() => api.aborted().length === 1, 'the held request to be aborted by the reload');

          // 3. Mounted again: the operation continues to its end.
          await untilTrue(async () => (await attr('status')) === 'done' || (await attr('status')) === 'error', 'the operation to end', 30_000);
          expect(await attr('error')).toBe('');
          expect(JSON.parse(await attr('data'))).toEqual({ rows: 42 });
          // This load showed the monitor's progress, then the result.
          const trail = await page.evaluate(() => window.trail);
          const running = trail.indexOf('data-progress={"status":"Running","percent":50}');
          expect(running).toBeGreaterThanOrEqual(0);
          expect(trail.indexOf('data-data={"rows":42}')).toBeGreaterThan(running);

          const starts = api.requests(api.paths.start, 'POST');
          const monitor = api.requests(api.paths.monitor);
          expect(starts).toHaveLength(1);
          expect(starts[0]!.headers['idempotency-key']).toMatch(/\S/);
          // The held one (aborted by the reload), the Running one, the Succeeded one; then the result, once.
          expect(monitor).toHaveLength(3);
          expect(api.requests(api.paths.result)).toHaveLength(1);
          expect(api.early()).toEqual([]);
          expect(monitor[0]!.gap).toBeGreaterThanOrEqual(WAIT * 1000);
          console.log(`resume-reload ${surface} ${OPERATION_CALL[surface]}: ${starts.length} start, ${monitor.length} monitor requests; first poll after Retry-After: ${WAIT} → ${monitor[0]!.gap} ms`);
          // The call ended: its checkpoint is gone.
          expect(await stored()).toBeNull();
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it(`${OPERATION_CALL[surface]}: reloaded during the start request: sent again with the key it was sent with, never a new one, and the result shown`, async () => {
        const name = `${surface}op2`;
        const api = server.job({ name, holdStarts: 1, startRetryAfter: 1, monitor: [{ body: { status: 'Succeeded', resourceLocation: `/api/${name}/result` } }], result: { rows: 7 } });
        const page: Page = await chromium.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const attr = async (name: string): Promise<string> => (await page.getAttribute('[data-testid=job]', `data-${name}`)) ?? '';
        const stored = () => checkpointOf(page, `pollite:report:${name}`);
        try {
          await page.goto(`${server.url}/?app=operation&job=${name}`);
          await untilTrue(() => api.requests(api.paths.start, 'POST').length === 1, 'the start request');
          // The key is in the store before the start is sent.
          expect((await stored())?.idempotencyKey).toBe(api.requests(api.paths.start, 'POST')[0]!.headers['idempotency-key']);
          await page.reload();
          await untilTrue(async () => (await attr('status')) === 'done' || (await attr('status')) === 'error', 'the operation to end', 30_000);
          expect(await attr('error')).toBe('');
          expect(JSON.parse(await attr('data'))).toEqual({ rows: 7 });
          const starts = api.requests(api.paths.start, 'POST');
          // Two start requests, one key: the first's answer was lost to the reload; a server that honours the key runs the job once.
          expect(starts).toHaveLength(2);
          expect(api.aborted()).toHaveLength(1);
          expect(starts[1]!.headers['idempotency-key']).toBe(starts[0]!.headers['idempotency-key']);
          expect(api.requests(api.paths.monitor)).toHaveLength(1);
          expect(api.early()).toEqual([]);
          expect(await stored()).toBeNull();
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });
    });
  }
});
