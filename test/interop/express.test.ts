// Express 5 with express-rate-limit, compression and express.static: what
// pollite sends, and what the server received and answered.
import compression from 'compression';
import express from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { fetchWithRetry } from '../../src/index.js';
import { jsonWithETag } from '../../src/server/index.js';
import { toNodeHandler } from '../../src/server/node.js';
import { CROWD, crowd } from './helpers/crowd.js';
import { DOCUMENT, staticDir } from './helpers/fixtures.js';
import { serveRecorded, type RecordedServer } from './helpers/recorded-server.js';
import { cooldownScope } from './helpers/scope.js';
import { report, summarise, type LimiterRun } from './helpers/summary.js';
import { pollTimes, times } from './helpers/ten-polls.js';
import { loneClient } from './helpers/lone-client.js';
import { toldUntil } from './helpers/told.js';

const files = staticDir();
let site: RecordedServer;
let pollite: RecordedServer;

/** The rate-limit dialects express-rate-limit speaks, each on its own route and limiter. */
const DIALECTS: Record<string, Partial<Options>> = {
  'draft-6': { standardHeaders: 'draft-6', legacyHeaders: false },
  'draft-7': { standardHeaders: 'draft-7', legacyHeaders: false },
  'draft-8': { standardHeaders: 'draft-8', legacyHeaders: false },
  legacy: { standardHeaders: false, legacyHeaders: true },
  off: { standardHeaders: false, legacyHeaders: false },
};

/** 20 requests a second for everyone on the loopback address (the default key: the IP). */
const limiter = (options: Partial<Options>) => rateLimit({ windowMs: 1000, limit: CROWD.limit, validate: false, ...options });

function app(): express.Express {
  const a = express();
  a.use(compression());
  a.get('/data', (_req, res) => void res.json(DOCUMENT));
  a.use('/static', express.static(files.dir));
  a.use('/static-lm', express.static(files.dir, { etag: false }));
  let n = 0;
  for (const [name, options] of Object.entries(DIALECTS)) a.get(`/limited/${name}`, limiter(options), (_req, res) => void res.json({ n: n++ }));
  a.all('/login', rateLimit({ windowMs: 10_000, limit: 1, standardHeaders: 'draft-7', validate: false }), (_req, res) => void res.json({ token: 't' }));
  a.get('/job', (_req, res) => void res.json({ status: 'running', n: n++ }));
  a.get('/pollite/job', toNodeHandler((request) => jsonWithETag(request, JOB)));
  a.get('/lone', rateLimit({ windowMs: 2000, limit: 2, standardHeaders: 'draft-7', legacyHeaders: false, validate: false }), (_req, res) => void res.json({ n: n++ }));
  return a;
}

const JOB = { id: 1, status: 'running' };

/** pollite/server mounted three ways, in an app without compression. */
function polliteApp(): express.Express {
  const a = express();
  a.get('/pollite/job', toNodeHandler((request) => jsonWithETag(request, JOB)));
  a.use('/api', toNodeHandler((request) => (new URL(request.url).pathname === '/api/jobs/1' ? jsonWithETag(request, { path: '/api/jobs/1' }) : new Response(null, { status: 404 }))));
  a.use('/parsed', express.json(), toNodeHandler(async (request) => jsonWithETag(request, request.method === 'POST' ? await request.json() : JOB)));
  return a;
}

beforeAll(async () => {
  site = await serveRecorded(app());
  pollite = await serveRecorded(polliteApp());
});
afterAll(async () => {
  clearCooldowns();
  await site.close();
  await pollite.close();
  files.remove();
});

describe('Express 5: 304s for unchanged data', () => {
  it('res.json behind compression: 1 × 200 + 9 × 304, each poll after the first conditional on the ETag', async () => {
    expect(await pollTimes(`${site.url}/data`)).toEqual([200, ...times(9, 304)]);
    const seen = site.at('/data');
    expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    expect(seen[0]!.headers['content-encoding']).toBe('gzip');
    const etag = seen[0]!.headers.etag;
    expect(etag).toMatch(/^W\/"/);
    expect(seen.map((a) => a.request['if-none-match'])).toEqual([undefined, ...times(9, etag)]);
  });

  it('express.static: 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/static/data.json`)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/static/data.json').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });

  it('express.static with etag: false (Last-Modified only): If-Modified-Since, 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/static-lm/data.json`)).toEqual([200, ...times(9, 304)]);
    const seen = site.at('/static-lm/data.json');
    expect(seen[0]!.headers.etag).toBeUndefined();
    expect(seen.map((a) => a.request['if-modified-since'])).toEqual([undefined, ...times(9, 'Mon, 01 Jan 2024 00:00:00 GMT')]);
    expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });
});

describe('Express 5 + express-rate-limit: 30 clients through a 20/s limit, in every dialect at once', () => {
  const runs: Record<string, LimiterRun> = {};
  beforeAll(async () => {
    await Promise.all(
      Object.keys(DIALECTS).map(async (dialect) => {
        const path = `/limited/${dialect}`;
        const result = await crowd(`${site.url}${path}`);
        runs[dialect] = summarise(site.at(path), result);
      }),
    );
    for (const [dialect, run] of Object.entries(runs)) report(`express-rate-limit ${dialect}`, run);
  }, 30_000);

  describe.each(Object.keys(DIALECTS))('%s', (dialect) => {
    it('the limiter limited: some requests were refused, every success counted', () => {
      expect(runs[dialect]!.statuses[429]).toBeGreaterThan(0);
      expect(runs[dialect]!.statuses[200]).toBe(CROWD.bodies);
    });

    it('no request of a client arrives before the reset (or Retry-After) it was told on a 429', () => {
      expect(runs[dialect]!.early).toEqual([]);
      const refused = site.at(`/limited/${dialect}`).filter((a) => a.status === 429);
      expect(refused.every((a) => toldUntil(a) !== undefined)).toBe(dialect !== 'off');
    });

    it('no client gives up: all 30 finish', () => {
      expect(runs[dialect]!.crowd).toMatchObject({ done: 30, gaveUp: 0, timedOut: 0, other: [] });
    });
  });
});

describe('Express 5 + express-rate-limit: a lone client told "remaining 0" on a 200', () => {
  // A 2xx that spends the window's last request (remaining 0, with the reset) is a floor of the next wait.
  it('waits for the announced reset instead of spending a request on a sure 429', async () => {
    const until = await loneClient(site, '/lone');
    const seen = site.at('/lone');
    expect(seen.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(seen[2]!.at).toBeGreaterThanOrEqual(until);
  });
});

describe('Express 5: cooldown scope', () => {
  it('a 429 from the limiter on /login cools /login only: a /job poller of the same origin goes on at once', async () => {
    await cooldownScope(site, { login: `${site.url}/login`, job: `${site.url}/job` });
  });
});

describe('Express 5: pollite/server mounted with toNodeHandler', () => {
  it('jsonWithETag on a route: 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${pollite.url}/pollite/job`)).toEqual([200, ...times(9, 304)]);
    expect(pollite.at('/pollite/job').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });

  it('under a mount path (app.use("/api", ...)) the handler sees the whole URL: 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${pollite.url}/api/jobs/1`)).toEqual([200, ...times(9, 304)]);
    expect(pollite.at('/api/jobs/1').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });

  it('after express.json(): a poll gets its 304s, and a POST body reaches the handler', async () => {
    expect(await pollTimes(`${pollite.url}/parsed/job`)).toEqual([200, ...times(9, 304)]);
    const response = await fetchWithRetry(`${pollite.url}/parsed/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: [1, 2] }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ a: [1, 2] });
  });

  // on-headers (behind compression, morgan...) must see the headers toNodeHandler writes.
  it('behind compression(): 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/pollite/job`)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/pollite/job').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/pollite/job')[0]!.headers.etag).toMatch(/^"/);
  });
});
