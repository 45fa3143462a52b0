// nginx (Debian's package) with its own configuration: static files with
// gzip, ETag and Last-Modified, limit_req, an app behind it, a dead and a
// hung upstream. What pollite sends, and what nginx logged.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { fetchWithRetry, poll, type PollEvent } from '../../src/index.js';
import { CROWD, crowd } from './helpers/crowd.js';
import { staticDir } from './helpers/fixtures.js';
import { startHungServer } from './helpers/hung-server.js';
import { requireOrSkip, toolPath } from '../helpers/tools.js';
import { startNginx, type NginxServer } from './helpers/nginx.js';
import { serveRecorded, type RecordedServer } from './helpers/recorded-server.js';
import { cooldownScope } from './helpers/scope.js';
import { report, summarise, type LimiterRun } from './helpers/summary.js';
import { pollTimes, times } from './helpers/ten-polls.js';
import { toldUntil } from './helpers/told.js';

// Missing locally: skipped, loudly. Missing under CI: this throws, and the run fails (scripts/find-tools.mjs knows where nginx is).
const present = requireOrSkip('nginx', 'the nginx interop tests (304s, limit_req, 502/504 from dead and hung upstreams)');
/** Nothing listens on port 2 (see test/helpers/server.ts's REFUSED_URL). */
const DEAD_PORT = 2;

describe.skipIf(!present)('nginx', () => {
  const files = staticDir();
  let site: NginxServer;
  let app: RecordedServer;
  let hung: Awaited<ReturnType<typeof startHungServer>>;

  beforeAll(async () => {
    app = await serveRecorded((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, at: Date.now() }));
    });
    hung = await startHungServer();
    site = await startNginx(toolPath('nginx'), files.dir, { app: Number(new URL(app.url).port), dead: DEAD_PORT, hung: hung.port });
  });
  afterAll(async () => {
    await site?.close();
    await app?.close();
    await hung?.close();
    files.remove();
  });
  afterEach(() => clearCooldowns());

  describe('304s for unchanged data', () => {
    it('static files (gzip on, ETag): 1 × 200 + 9 × 304, conditional on the (weakened) ETag', async () => {
      expect(await pollTimes(`${site.url}/static/data.json`)).toEqual([200, ...times(9, 304)]);
      await site.settle();
      const seen = site.at('/static/data.json');
      expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
      expect(seen[0]!.headers['content-encoding']).toBe('gzip');
      expect(seen[0]!.headers.etag).toMatch(/^W\/"/);
      expect(seen.slice(1).every((a) => a.request['if-none-match'] === seen[0]!.headers.etag)).toBe(true);
    });

    it('etag off (Last-Modified only): If-Modified-Since, 1 × 200 + 9 × 304', async () => {
      expect(await pollTimes(`${site.url}/static-lm/data.json`)).toEqual([200, ...times(9, 304)]);
      await site.settle();
      const seen = site.at('/static-lm/data.json');
      expect(seen[0]!.headers.etag).toBeUndefined();
      expect(seen.map((a) => a.request['if-modified-since'])).toEqual([undefined, ...times(9, 'Mon, 01 Jan 2024 00:00:00 GMT')]);
      expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    });
  });

  describe('limit_req (20 r/s, burst 5, no Retry-After): 30 clients', () => {
    const VARIANTS = { 'limit_req_status 503 (the default)': ['/limited-503', 503], 'limit_req_status 429': ['/limited-429', 429] } as const;
    const runs: Record<string, LimiterRun> = {};
    beforeAll(async () => {
      await Promise.all(
        Object.entries(VARIANTS).map(async ([variant, [path]]) => {
          const result = await crowd(`${site.url}${path}`);
          await site.settle();
          runs[variant] = summarise(site.at(path), result);
        }),
      );
      for (const [variant, run] of Object.entries(runs)) report(`nginx ${variant}`, run);
    }, 40_000);

    describe.each(Object.entries(VARIANTS))('%s', (variant, [, status]) => {
      it(`the limiter limited with ${status}s that say nothing of when to come back`, () => {
        const run = runs[variant]!;
        expect(run.statuses[status]).toBeGreaterThan(0);
        expect(Object.keys(run.statuses).sort()).toEqual(['200', String(status)]);
        expect(run.statuses[200]).toBe(CROWD.bodies);
      });

      it('no client gives up: all 30 finish', () => {
        expect(runs[variant]!.crowd).toMatchObject({ done: 30, gaveUp: 0, timedOut: 0, other: [] });
      });
    });
  });

  describe('cooldown scope', () => {
    it('a 429 from limit_req on /login (with Retry-After added) cools /login only: a /job poller goes on at once', async () => {
      await cooldownScope(site, { login: `${site.url}/login`, job: `${site.url}/job` });
    });

    it('a 503 with Retry-After (a maintenance page) cools the whole origin: a poller of another route waits it out', async () => {
      const down = await fetchWithRetry(`${site.url}/maintenance`, { retry: { retries: 0 } });
      await down.arrayBuffer();
      expect(down.status).toBe(503);
      const events: PollEvent[] = [];
      await poll(`${site.url}/job`, { isDone: () => true, onEvent: (e) => events.push(e) });
      await site.settle();
      const until = toldUntil(site.at('/maintenance')[0]!)!;
      expect(events[0]).toMatchObject({ type: 'cooldown', origin: site.url });
      const job = site.at('/job').at(-1)!;
      expect(job.status).toBe(200);
      expect(job.at).toBeGreaterThanOrEqual(until);
    });
  });

  describe('fetchWithRetry: 502 from a dead upstream, 504 from a hung one', () => {
    const quick = { backoff: () => 20, retries: 2 };

    it('retries a GET on 502 (3 attempts), sends a POST once, and retries a keyed POST with the same key', async () => {
      const get = await fetchWithRetry(`${site.url}/dead`, { retry: quick });
      const post = await fetchWithRetry(`${site.url}/dead`, { method: 'POST', body: 'x', retry: quick });
      const keyed = await fetchWithRetry(`${site.url}/dead`, { method: 'POST', body: 'x', retry: { ...quick, idempotencyKey: 'order-7' } });
      for (const response of [get, post, keyed]) {
        expect(response.status).toBe(502);
        await response.arrayBuffer();
      }
      await site.settle();
      const seen = site.at('/dead');
      expect(seen.map((a) => `${a.method} ${a.status}`)).toEqual(['GET 502', 'GET 502', 'GET 502', 'POST 502', 'POST 502', 'POST 502', 'POST 502']);
      expect(seen.slice(3).map((a) => a.request['idempotency-key'])).toEqual([undefined, 'order-7', 'order-7', 'order-7']);
    });

    it('retries a GET on 504 (nginx gave up on the hung upstream after 300 ms), and sends a POST once', async () => {
      const get = await fetchWithRetry(`${site.url}/hung`, { retry: { ...quick, retries: 1 } });
      const post = await fetchWithRetry(`${site.url}/hung`, { method: 'POST', body: 'x', retry: quick });
      for (const response of [get, post]) {
        expect(response.status).toBe(504);
        await response.arrayBuffer();
      }
      await site.settle();
      expect(site.at('/hung').map((a) => `${a.method} ${a.status}`)).toEqual(['GET 504', 'GET 504', 'POST 504']);
      expect(hung.accepted()).toBe(3);
    });
  });
});
