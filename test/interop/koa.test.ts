// Koa 3 with koa-conditional-get, koa-etag and koa-ratelimit (memory driver):
// what pollite sends, and what the server received and answered.
import Koa, { type Middleware } from 'koa';
import conditional from 'koa-conditional-get';
import etag from 'koa-etag';
import ratelimit from 'koa-ratelimit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { jsonWithETag } from '../../src/server/index.js';
import { toNodeHandler } from '../../src/server/node.js';
import { CROWD, crowd } from './helpers/crowd.js';
import { DOCUMENT } from './helpers/fixtures.js';
import { loneClient } from './helpers/lone-client.js';
import { serveRecorded, type RecordedServer } from './helpers/recorded-server.js';
import { cooldownScope } from './helpers/scope.js';
import { report, summarise, type LimiterRun } from './helpers/summary.js';
import { pollTimes, times } from './helpers/ten-polls.js';
import { toldUntil } from './helpers/told.js';

const JOB = { id: 1, status: 'running' };
const polliteJob = toNodeHandler((request) => jsonWithETag(request, JOB));

/** koa-ratelimit's memory driver: the Map is the store (without one, every request gets a fresh limit). */
const limit = (duration: number, max: number): Middleware => ratelimit({ driver: 'memory', db: new Map(), duration, max, id: (ctx) => ctx.ip });

function app(): Koa {
  const a = new Koa();
  let n = 0;
  const routes: Record<string, Middleware[]> = {
    '/data': [(ctx) => void (ctx.body = DOCUMENT)],
    '/limited': [limit(1000, CROWD.limit), (ctx) => void (ctx.body = { n: n++ })],
    '/login': [limit(10_000, 1), (ctx) => void (ctx.body = { token: 't' })],
    '/lone': [limit(2000, 2), (ctx) => void (ctx.body = { n: n++ })],
    '/job': [(ctx) => void (ctx.body = { status: 'running', n: n++ })],
    '/pollite/job': [
      async (ctx) => {
        ctx.respond = false;
        await polliteJob(ctx.req, ctx.res);
      },
    ],
  };
  a.use(conditional());
  a.use(etag());
  a.use(async (ctx, next) => {
    const chain = routes[ctx.path];
    if (!chain) return next();
    const run = async (i: number): Promise<void> => void (await chain[i]!(ctx, () => (i + 1 < chain.length ? run(i + 1) : next())));
    await run(0);
  });
  return a;
}

let site: RecordedServer;
beforeAll(async () => {
  site = await serveRecorded(app().callback());
});
afterAll(async () => {
  await site.close();
});
afterEach(() => clearCooldowns());

describe('Koa 3: 304s for unchanged data', () => {
  it('koa-conditional-get + koa-etag: 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/data`)).toEqual([200, ...times(9, 304)]);
    const seen = site.at('/data');
    expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    // Node's fetch adds Cache-Control: no-cache to a conditional request; pollite asks it for cache: 'no-cache', and the max-age=0 it says instead keeps `fresh` answering 304.
    expect(seen.slice(1).every((a) => a.request['cache-control'] === 'max-age=0')).toBe(true);
  });

  it('pollite/server through toNodeHandler (ctx.respond = false): 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/pollite/job`)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/pollite/job').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });
});

describe('Koa 3 + koa-ratelimit: 30 clients through a 20/s limit (fractional X-RateLimit-Reset, Retry-After 0 in the last second)', () => {
  let run: LimiterRun;
  beforeAll(async () => {
    const result = await crowd(`${site.url}/limited`);
    run = summarise(site.at('/limited'), result);
    report('koa-ratelimit', run);
  }, 30_000);

  it('the limiter limited, told a fractional epoch reset on every 429, and a Retry-After of 0 in the last second', () => {
    const refused = site.at('/limited').filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => /^\d+\.\d+$/.test(a.headers['x-ratelimit-reset']!) && toldUntil(a) !== undefined)).toBe(true);
    expect(refused.some((a) => a.headers['retry-after'] === '0')).toBe(true);
    expect(run.statuses[200]).toBe(CROWD.bodies);
  });

  it('no request of a client arrives before the reset it was told', () => {
    expect(run.early).toEqual([]);
  });

  it('no client gives up: all 30 finish', () => {
    expect(run.crowd).toMatchObject({ done: 30, gaveUp: 0, timedOut: 0, other: [] });
  });

  // koa-ratelimit answers the window's last allowed request 200 with X-RateLimit-Remaining: 0 and the reset: a floor.
  it('a lone client told "remaining 0" on a 200 waits for the announced reset', async () => {
    const until = await loneClient(site, '/lone');
    const seen = site.at('/lone');
    expect(seen.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(seen[2]!.at).toBeGreaterThanOrEqual(until);
  });
});

describe('Koa 3: cooldown scope', () => {
  it('a 429 from the limiter on /login cools /login only: a /job poller of the same origin goes on at once', async () => {
    await cooldownScope(site, { login: `${site.url}/login`, job: `${site.url}/job` });
  });
});
