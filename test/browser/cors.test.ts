import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApi, type DemoApiOptions } from '../../src/demo/job-api.js';
import type { PollEvent } from '../../src/index.js';
import { toNodeHandler } from '../../src/server/node.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';
import { polliteBundle, servePollitePage } from './helpers/pollite-page.js';

// A page on one origin (127.0.0.1:A) polls the demo job API on another
// (127.0.0.1:B) with pollite's `poll`, in real headless Chromium. Once with
// the demo's pollingCors, once with only `Access-Control-Allow-Origin: *`,
// which is what most APIs send: the page can then read neither ETag nor
// Retry-After, and pollite silently falls back to full bodies and backoff.

interface Seen {
  method: string;
  ifNoneMatch: string | null;
  status: number;
}

interface PageRun {
  result: { status: string; progress: number };
  events: PollEvent[];
  jobId: string;
}

/** The GET of a job that meets an outage (503, Retry-After: 1): counted, not timed, so CPU load cannot move it. */
const OUTAGE_AT = 3;

/** The demo API on 127.0.0.1 through toNodeHandler, recording what it received and answered. */
async function startApi(cors: DemoApiOptions['cors']): Promise<{ url: string; api: ReturnType<typeof createDemoApi>; seen: Seen[]; server: Server }> {
  const api = createDemoApi({ cors });
  const seen: Seen[] = [];
  let jobGets = 0;
  const server = createServer(
    toNodeHandler(async (request) => {
      const outage = request.method === 'GET' && new URL(request.url).pathname.startsWith('/jobs/') && ++jobGets === OUTAGE_AT;
      if (outage) api.setControls({ outage: { retryAfter: 1 } });
      const response = await api.handle(request);
      if (outage) api.setControls({});
      seen.push({ method: request.method, ifNoneMatch: request.headers.get('if-none-match'), status: response.status });
      return response;
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, api, seen, server };
}

const closeServer = (server: Server | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('a cross-origin page polling the demo API in Chromium', () => {
  let page: TestServer;
  let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let polite: Awaited<ReturnType<typeof startApi>> | undefined;
  let naive: Awaited<ReturnType<typeof startApi>> | undefined;

  beforeAll(async () => {
    const code = await polliteBundle();
    page = await startServer((_req, res, seen) => {
      if (servePollitePage(seen.path, res, code)) return;
      res.writeHead(404);
      res.end();
    });
    [polite, naive] = await Promise.all([startApi(undefined), startApi('origin-only')]);
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await Promise.all([closeServer(polite?.server), closeServer(naive?.server), page?.close()]);
  });

  /** Opens the page on its own origin, creates a job, and polls it to the end (its 3rd GET meets a 503 + Retry-After: 1). */
  async function pollFromPage(api: NonNullable<typeof polite>): Promise<PageRun> {
    const tab = await chromium!.context.newPage();
    await tab.goto(`${page.url}/`);
    await tab.waitForFunction(() => 'pollite' in window);
    const job = api.api.createJob({
      duration: 3000,
      // Progress stays at 0 while running, so conditional polls get 304s until done.
      step: 100,
    });
    const run = await tab.evaluate(async (url) => {
      const { poll, constant } = (window as unknown as { pollite: typeof import('../../src/index.js') }).pollite;
      const events: PollEvent[] = [];
      const result = await poll<{ status: string; progress: number }>(url, {
        interval: 150,
        backoff: constant(300),
        isDone: (j) => j.status === 'done' || j.status === 'failed',
        onEvent: (event) => events.push(event),
      });
      return { result, events };
    }, `${api.url}/jobs/${job.id}`);
    await tab.close();
    return { ...run, jobId: job.id };
  }

  const statuses = (run: PageRun): number[] =>
    run.events.flatMap((e) => (e.type === 'response' ? [e.status] : []));
  const retries = (run: PageRun) => run.events.flatMap((e) => (e.type === 'retry' ? [e] : []));

  it('with pollingCors: If-None-Match goes out (after a preflight), 304s come back, Retry-After paces the retry', async () => {
    const run = await pollFromPage(polite!);
    expect(run.result).toEqual({ id: expect.any(String), status: 'done', progress: 100 });

    // What the poller saw and did.
    const story = JSON.stringify(run.events);
    expect(statuses(run), story).toContain(304);
    expect(statuses(run), story).toContain(503);
    expect(run.events.some((e) => e.type === 'request' && e.conditional)).toBe(true);
    const outage = retries(run);
    expect(outage.length).toBeGreaterThan(0);
    for (const retry of outage) {
      expect(retry).toMatchObject({ reason: 'status', status: 503, retryAfter: 1000 });
      expect(retry.delay).toBeGreaterThanOrEqual(1000);
      expect(retry.delay).toBeLessThanOrEqual(1200);
    }

    // What the server received: a CORS preflight for If-None-Match, then conditional GETs answered 304.
    const gets = polite!.seen.filter((s) => s.method === 'GET');
    expect(polite!.seen.some((s) => s.method === 'OPTIONS' && s.status === 204)).toBe(true);
    expect(gets.filter((s) => s.status === 304).every((s) => s.ifNoneMatch !== null)).toBe(true);
    expect(gets.filter((s) => s.status === 304).length).toBe(statuses(run).filter((s) => s === 304).length);
    expect(polite!.api.stats(run.jobId)!.ignoredRetryAfter).toBe(0);
  });

  it("with only Access-Control-Allow-Origin: the silent fallback (no 304 for the poller, backoff instead of Retry-After)", async () => {
    const run = await pollFromPage(naive!);
    expect(run.result).toMatchObject({ status: 'done', progress: 100 });

    // The poller could read neither header: it never sent If-None-Match, never saw a 304...
    expect(run.events.some((e) => e.type === 'request' && e.conditional)).toBe(false);
    expect(statuses(run)).not.toContain(304);
    expect(statuses(run)).toContain(503);
    // ...and the server's Retry-After: 1 was invisible, so it backed off blindly (interval 150 + constant 300).
    const outage = retries(run);
    expect(outage.length).toBeGreaterThan(0);
    for (const retry of outage) expect(retry).toMatchObject({ reason: 'status', status: 503, retryAfter: null, delay: 450 });

    // The server never saw a preflight (the page sent no non-safelisted header), and saw the
    // poller come back inside the Retry-After it had announced.
    expect(naive!.seen.some((s) => s.method === 'OPTIONS')).toBe(false);
    expect(naive!.api.stats(run.jobId)!.ignoredRetryAfter).toBeGreaterThan(0);
    // Chromium's HTTP cache may revalidate on its own (Cache-Control: no-cache + ETag) and get
    // 304s, but it hands the page the cached 200 with the full body: whatever the server
    // answered, every 200 or 304 reached the poller as a 200 it had to parse again.
    const gets = naive!.seen.filter((s) => s.method === 'GET');
    const fresh = gets.filter((s) => s.status === 200 || s.status === 304).length;
    expect(statuses(run).filter((s) => s === 200).length).toBe(fresh);
  });
});
