import type { Page } from 'playwright-core';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from './helpers/chromium.js';
import { startJobServer } from './resume-reload/api-server.js';
import { checkpointOf, untilTrue, waitAsked } from './resume-reload/waits.js';

// Issue 37's proof in Chromium, for `pollOperation` with a checkpoint in
// localStorage: a page starts an operation and is reloaded mid-way (during
// the start answer's Retry-After wait, during a request to the monitor, and
// during the monitor's Retry-After wait), and finishes it. Everything is
// asserted on the server's side: how many starts it saw, and the time each
// request arrived against the wait the server had asked for (a gap measured
// from when the answer left). No wall-clock tolerance: "no earlier than
// asked" is exact. See ./adapters/resume-reload.test.ts for the adapters.

/** The server's Retry-After, s: long enough that a loaded machine still reloads within it (`waitAsked` fails loudly if not). */
const WAIT = 3;

const PAGE = '<!doctype html><meta charset="utf-8"><title>pollite resume</title><body><script type="module" src="/app.js"></script></body>';

describe.skipIf(!hasChromium())('pollite/resume in Chromium: a page reloaded mid-operation', () => {
  let server: Awaited<ReturnType<typeof startJobServer>>;
  let chromium: Awaited<ReturnType<typeof launchChromium>>;
  const pages: Page[] = [];
  let errors: string[] = [];

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: ['test/browser/resume-reload/operation-page.ts'],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    server = await startJobServer({ files: { '/index.html': ['text/html', PAGE], '/app.js': ['text/javascript', bundle.outputFiles[0]!.text] } });
    chromium = await launchChromium();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  async function open(job: string): Promise<Page> {
    const page = await chromium.context.newPage();
    pages.push(page);
    errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/?job=${job}`);
    return page;
  }
  const shown = (page: Page, name: 'result' | 'error'): Promise<string | null> => page.getAttribute('body', `data-${name}`);
  const stored = (page: Page, job: string) => checkpointOf(page, `pollite:report:${job}`);

  it('reloaded during the start’s Retry-After, during a monitor request and during the monitor’s Retry-After: one start, nothing early, the result shown', async () => {
    const api = server.job({
      name: 'op1',
      startRetryAfter: WAIT,
      monitor: ['hold', { body: { status: 'Running' }, retryAfter: WAIT }, { body: { status: 'Succeeded', resourceLocation: '/api/op1/result' } }],
      result: { rows: 42 },
    });
    const page = await open('op1');

    // 1. During the start answer's wait: reloaded once the checkpoint names the monitor.
    await untilTrue(async () => (await stored(page, 'op1'))?.url?.endsWith('/api/op1/monitor') === true, 'the checkpoint to name the monitor');
    waitAsked(api, 'the start');
    await page.reload();

    // 2. During the monitor's first request (the server holds it): reloaded, the request aborted.
    await untilTrue(() => api.requests(api.paths.monitor).length === 1, 'the first monitor request');
    await page.reload();
    await untilTrue(() => api.aborted().length === 1, 'the held request to be aborted by the reload');

    // 3. During the monitor's Retry-After: reloaded once the checkpoint holds that wait.
    await untilTrue(() => api.requests(api.paths.monitor).length === 2, 'the second monitor request');
    const answered = api.requests(api.paths.monitor)[1]!.at;
    await untilTrue(async () => ((await stored(page, 'op1'))?.notBefore ?? 0) >= answered + WAIT * 1000, 'the checkpoint to hold the wait');
    waitAsked(api, 'the monitor');
    await page.reload();

    await untilTrue(async () => (await shown(page, 'result')) !== null || (await shown(page, 'error')) !== null, 'the operation to end', 30_000);
    expect(await shown(page, 'error')).toBeNull();
    expect(JSON.parse((await shown(page, 'result'))!)).toEqual({ rows: 42 });

    const starts = api.requests(api.paths.start, 'POST');
    const monitor = api.requests(api.paths.monitor);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.headers['idempotency-key']).toMatch(/\S/);
    // The held one (aborted by the reload), the Running one, the Succeeded one; then the result, once.
    expect(monitor).toHaveLength(3);
    expect(api.requests(api.paths.result)).toHaveLength(1);
    expect(api.early()).toEqual([]);
    // The first poll after the start's Retry-After, and the poll after the monitor's, across a reload each.
    expect(monitor[0]!.gap).toBeGreaterThanOrEqual(WAIT * 1000);
    expect(monitor[2]!.gap).toBeGreaterThanOrEqual(WAIT * 1000);
    console.log(`resume-reload op1: ${starts.length} start; gaps after Retry-After: ${WAIT} → ${monitor[0]!.gap} ms, ${monitor[2]!.gap} ms`);
    // The call ended: its checkpoint is gone.
    expect(await stored(page, 'op1')).toBeNull();
  });

  it('reloaded during the start request itself: sent again with the same Idempotency-Key, never a new one', async () => {
    const api = server.job({
      name: 'op2',
      holdStarts: 1,
      startRetryAfter: 1,
      monitor: [{ body: { status: 'Succeeded', resourceLocation: '/api/op2/result' } }],
      result: { rows: 7 },
    });
    const page = await open('op2');
    await untilTrue(() => api.requests(api.paths.start, 'POST').length === 1, 'the start request');
    // The key is in the store before the start is sent.
    expect((await stored(page, 'op2'))?.idempotencyKey).toBe(api.requests(api.paths.start, 'POST')[0]!.headers['idempotency-key']);
    await page.reload();
    await untilTrue(async () => (await shown(page, 'result')) !== null || (await shown(page, 'error')) !== null, 'the operation to end', 30_000);
    expect(await shown(page, 'error')).toBeNull();
    expect(JSON.parse((await shown(page, 'result'))!)).toEqual({ rows: 7 });
    const starts = api.requests(api.paths.start, 'POST');
    // Two start requests, one key: the answer of the first was lost to the reload, and a server that honours the key runs the job once.
    expect(starts).toHaveLength(2);
    expect(api.aborted()).toHaveLength(1);
    expect(starts[1]!.headers['idempotency-key']).toBe(starts[0]!.headers['idempotency-key']);
    expect(api.early()).toEqual([]);
    expect(await stored(page, 'op2')).toBeNull();
  });

  it('two tabs of one profile resume the same checkpoint: no second start, each waits for the start’s Retry-After, both show the result', async () => {
    const api = server.job({
      name: 'op3',
      startRetryAfter: 2,
      monitor: [{ body: { status: 'Running' }, retryAfter: 1 }, { body: { status: 'Running' }, retryAfter: 1 }, { body: { status: 'Succeeded', resourceLocation: '/api/op3/result' } }],
      result: { rows: 3 },
    });
    const first = await open('op3');
    await untilTrue(async () => (await stored(first, 'op3'))?.url?.endsWith('/api/op3/monitor') === true, 'the checkpoint to name the monitor');
    const second = await open('op3');
    for (const page of [first, second]) {
      await untilTrue(async () => (await shown(page, 'result')) !== null || (await shown(page, 'error')) !== null, 'both tabs to end', 30_000);
      expect(await shown(page, 'error')).toBeNull();
      expect(JSON.parse((await shown(page, 'result'))!)).toEqual({ rows: 3 });
    }
    const [start] = api.requests(api.paths.start, 'POST');
    expect(api.requests(api.paths.start, 'POST')).toHaveLength(1);
    const monitor = api.requests(api.paths.monitor);
    // Without shareTabs() (docs/resume.md) both tabs poll, but neither before the start's wait was over.
    for (const request of monitor) expect(request.at - start!.answered!).toBeGreaterThanOrEqual(2000);
    console.log(`resume-reload two tabs: 1 start, ${monitor.length} monitor requests, ${api.requests(api.paths.result).length} result requests`);
    await untilTrue(async () => (await stored(first, 'op3')) === null, 'the checkpoint to be deleted once both ended');
  });
});
