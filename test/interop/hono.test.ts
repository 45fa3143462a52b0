// Hono 4 with its etag middleware and hono-rate-limiter, served by
// @hono/node-server: what pollite sends, and what the server received and answered.
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { etag } from 'hono/etag';
import { rateLimiter } from 'hono-rate-limiter';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { jsonWithETag } from '../../src/server/index.js';
import { CROWD, crowd } from './helpers/crowd.js';
import { DOCUMENT } from './helpers/fixtures.js';
import { serveRecorded, type RecordedServer } from './helpers/recorded-server.js';
import { cooldownScope } from './helpers/scope.js';
import { report, summarise, type LimiterRun } from './helpers/summary.js';
import { pollTimes, times } from './helpers/ten-polls.js';
import { toldUntil } from './helpers/told.js';

const DIALECTS = ['draft-6', 'draft-7'] as const;
const JOB = { id: 1, status: 'running' };
// Every client is on 127.0.0.1: one key for all, as keying by IP would give.
const everyone = () => 'loopback';

function app(): Hono {
  const a = new Hono();
  let n = 0;
  a.use('/data', etag());
  a.get('/data', (c) => c.json(DOCUMENT));
  for (const dialect of DIALECTS) {
    a.use(`/limited/${dialect}`, rateLimiter({ windowMs: 1000, limit: CROWD.limit, standardHeaders: dialect, keyGenerator: everyone }));
    a.get(`/limited/${dialect}`, (c) => c.json({ n: n++ }));
  }
  a.use('/login', rateLimiter({ windowMs: 10_000, limit: 1, standardHeaders: 'draft-7', keyGenerator: everyone }));
  a.on(['GET', 'POST'], '/login', (c) => c.json({ token: 't' }));
  a.get('/job', (c) => c.json({ status: 'running', n: n++ }));
  // pollite/server's web handler, as it is: Hono speaks Request and Response.
  a.get('/pollite/job', (c) => jsonWithETag(c.req.raw, JOB));
  return a;
}

let site: RecordedServer;
beforeAll(async () => {
  site = await serveRecorded(getRequestListener(app().fetch));
});
afterAll(async () => {
  await site.close();
});
afterEach(() => clearCooldowns());

describe('Hono 4: 304s for unchanged data', () => {
  it("Hono's etag middleware: 1 × 200 + 9 × 304", async () => {
    expect(await pollTimes(`${site.url}/data`)).toEqual([200, ...times(9, 304)]);
    const seen = site.at('/data');
    expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    expect(seen.slice(1).every((a) => a.request['if-none-match'] === seen[0]!.headers.etag)).toBe(true);
  });

  it("pollite/server's jsonWithETag as a Hono handler: 1 × 200 + 9 × 304", async () => {
    expect(await pollTimes(`${site.url}/pollite/job`)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/pollite/job').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });
});

describe('Hono 4 + hono-rate-limiter: 30 clients through a 20/s limit', () => {
  const runs: Record<string, LimiterRun> = {};
  beforeAll(async () => {
    await Promise.all(
      DIALECTS.map(async (dialect) => {
        const result = await crowd(`${site.url}/limited/${dialect}`);
        runs[dialect] = summarise(site.at(`/limited/${dialect}`), result);
      }),
    );
    for (const [dialect, run] of Object.entries(runs)) report(`hono-rate-limiter ${dialect}`, run);
  }, 30_000);

  describe.each(DIALECTS)('%s', (dialect) => {
    it('the limiter limited, and said when to come back on every 429', () => {
      const refused = site.at(`/limited/${dialect}`).filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((a) => toldUntil(a) !== undefined)).toBe(true);
      expect(runs[dialect]!.statuses[200]).toBe(CROWD.bodies);
    });

    it('no request of a client arrives before the reset it was told', () => {
      expect(runs[dialect]!.early).toEqual([]);
    });

    it('no client gives up: all 30 finish', () => {
      expect(runs[dialect]!.crowd).toMatchObject({ done: 30, gaveUp: 0, timedOut: 0, other: [] });
    });
  });
});

describe('Hono 4: cooldown scope', () => {
  it('a 429 from the limiter on /login cools /login only: a /job poller of the same origin goes on at once', async () => {
    await cooldownScope(site, { login: `${site.url}/login`, job: `${site.url}/job` });
  });
});
