// Fastify 5 with @fastify/rate-limit, @fastify/etag, @fastify/compress and
// @fastify/under-pressure: what pollite sends, and what the server received and answered.
import fastifyCompress from '@fastify/compress';
import fastifyEtag from '@fastify/etag';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyUnderPressure from '@fastify/under-pressure';
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { fetchWithRetry, poll, type PollEvent } from '../../src/index.js';
import { jsonWithETag } from '../../src/server/index.js';
import { toNodeHandler } from '../../src/server/node.js';
import { CROWD, crowd } from './helpers/crowd.js';
import { DOCUMENT } from './helpers/fixtures.js';
import { recordedServer, recording, type Arrival, type RecordedServer } from './helpers/recorded-server.js';
import { cooldownScope } from './helpers/scope.js';
import { report, summarise, type LimiterRun } from './helpers/summary.js';
import { pollTimes, times } from './helpers/ten-polls.js';
import { toldUntil } from './helpers/told.js';

/** A Fastify app on 127.0.0.1, every request recorded on the way in. */
async function serveFastify(build: (app: FastifyInstance) => Promise<void>): Promise<RecordedServer> {
  const arrivals: Arrival[] = [];
  const app = Fastify({ forceCloseConnections: true, serverFactory: (handler) => createServer(recording(handler, arrivals)) });
  await build(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return recordedServer(app.server, arrivals, url, () => app.close());
}

const JOB = { id: 1, status: 'running' };
const polliteJob = toNodeHandler((request) => jsonWithETag(request, JOB));

let site: RecordedServer;
let healthy = true;
let pressure: RecordedServer;

beforeAll(async () => {
  site = await serveFastify(async (app) => {
    await app.register(fastifyEtag);
    await app.register(fastifyCompress);
    await app.register(fastifyRateLimit, { global: false });
    let n = 0;
    app.get('/data', async () => DOCUMENT);
    const limit = { max: CROWD.limit, timeWindow: 1000 };
    app.get('/limited', { config: { rateLimit: limit } }, async () => ({ n: n++ }));
    const noRetryAfter = { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': false };
    app.get('/limited-no-retry-after', { config: { rateLimit: { ...limit, addHeaders: noRetryAfter } } }, async () => ({ n: n++ }));
    app.route({ method: ['GET', 'POST'], url: '/login', config: { rateLimit: { max: 1, timeWindow: 10_000 } }, handler: async () => ({ token: 't' }) });
    app.get('/job', async () => ({ status: 'running', n: n++ }));
    app.get('/pollite/job', async (request, reply) => {
      reply.hijack();
      await polliteJob(request.raw, reply.raw);
    });
  });
  pressure = await serveFastify(async (app) => {
    await app.register(fastifyUnderPressure, { healthCheck: async () => healthy, healthCheckInterval: 10, retryAfter: 1 });
    let n = 0;
    app.get('/a', async () => ({ n: n++ }));
    app.get('/b', async () => ({ n: n++ }));
    app.post('/orders', async (request) => ({ key: request.headers['idempotency-key'] ?? null }));
  });
});
afterAll(async () => {
  await site.close();
  await pressure.close();
});
afterEach(() => clearCooldowns());

/** Sets the health check's answer and waits until under-pressure has read it. */
async function setHealthy(value: boolean): Promise<void> {
  healthy = value;
  await new Promise((resolve) => setTimeout(resolve, 40));
}

describe('Fastify 5: 304s for unchanged data', () => {
  it('@fastify/etag (with @fastify/compress): 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/data`)).toEqual([200, ...times(9, 304)]);
    const seen = site.at('/data');
    expect(seen.map((a) => a.status)).toEqual([200, ...times(9, 304)]);
    expect(seen[0]!.headers['content-encoding']).toBe('gzip');
    expect(seen.slice(1).every((a) => a.request['if-none-match'] === seen[0]!.headers.etag)).toBe(true);
  });

  it('pollite/server through toNodeHandler (reply.hijack()): 1 × 200 + 9 × 304', async () => {
    expect(await pollTimes(`${site.url}/pollite/job`)).toEqual([200, ...times(9, 304)]);
    expect(site.at('/pollite/job').map((a) => a.status)).toEqual([200, ...times(9, 304)]);
  });
});

describe('Fastify 5 + @fastify/rate-limit: 30 clients through a 20/s limit (x-ratelimit-reset as seconds to go)', () => {
  const VARIANTS = { 'with retry-after': '/limited', 'without retry-after': '/limited-no-retry-after' };
  const runs: Record<string, LimiterRun> = {};
  beforeAll(async () => {
    await Promise.all(
      Object.entries(VARIANTS).map(async ([variant, path]) => {
        const result = await crowd(`${site.url}${path}`);
        runs[variant] = summarise(site.at(path), result);
      }),
    );
    for (const [variant, run] of Object.entries(runs)) report(`@fastify/rate-limit ${variant}`, run);
  }, 30_000);

  describe.each(Object.entries(VARIANTS))('%s', (variant, path) => {
    it('the limiter limited, and said when to come back on every 429', () => {
      const refused = site.at(path).filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((a) => toldUntil(a) !== undefined && Number(a.headers['x-ratelimit-reset']) < 1e9)).toBe(true);
      expect(refused.some((a) => 'retry-after' in a.headers)).toBe(variant === 'with retry-after');
      expect(runs[variant]!.statuses[200]).toBe(CROWD.bodies);
    });

    it('no request of a client arrives before the reset it was told', () => {
      expect(runs[variant]!.early).toEqual([]);
    });

    it('no client gives up: all 30 finish', () => {
      expect(runs[variant]!.crowd).toMatchObject({ done: 30, gaveUp: 0, timedOut: 0, other: [] });
    });
  });
});

describe('Fastify 5: cooldown scope', () => {
  it('a 429 from the limiter on /login cools /login only: a /job poller of the same origin goes on at once', async () => {
    await cooldownScope(site, { login: `${site.url}/login`, job: `${site.url}/job` });
  });

  it("a 503 from @fastify/under-pressure cools the whole origin: a poller of another route waits out its Retry-After", async () => {
    await setHealthy(false);
    const events: PollEvent[] = [];
    let other: Promise<unknown> | undefined;
    const first = poll(`${pressure.url}/a`, {
      interval: 50,
      isDone: () => true,
      onEvent: (event) => {
        if (event.type !== 'retry' || other) return;
        healthy = true;
        other = poll(`${pressure.url}/b`, { interval: 50, isDone: () => true, onEvent: (e) => events.push(e) });
      },
    });
    await first;
    await other;
    const refused = pressure.at('/a')[0]!;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    const until = toldUntil(refused)!;
    expect(events[0]).toMatchObject({ type: 'cooldown', origin: pressure.url });
    const b = pressure.at('/b');
    expect(b.map((a) => a.status)).toEqual([200]);
    expect(b[0]!.at).toBeGreaterThanOrEqual(until);
    expect(pressure.at('/a').slice(1).every((a) => a.at >= until && a.status === 200)).toBe(true);
  });
});

describe('Fastify 5: fetchWithRetry against @fastify/under-pressure', () => {
  it("retries a GET after the 503's Retry-After", async () => {
    await setHealthy(false);
    const before = pressure.at('/a').length;
    const response = await fetchWithRetry(`${pressure.url}/a`, { retry: { onRetry: () => void (healthy = true) } });
    expect(response.status).toBe(200);
    const seen = pressure.at('/a').slice(before);
    expect(seen.map((a) => a.status)).toEqual([503, 200]);
    expect(seen[1]!.at).toBeGreaterThanOrEqual(toldUntil(seen[0]!)!);
  });

  it('sends a POST once without an idempotency key, and retries it with the same key with one', async () => {
    await setHealthy(false);
    const once = await fetchWithRetry(`${pressure.url}/orders`, { method: 'POST', body: '{}' });
    expect(once.status).toBe(503);
    await once.arrayBuffer();
    expect(pressure.at('/orders').map((a) => a.status)).toEqual([503]);
    clearCooldowns();
    const keyed = await fetchWithRetry(`${pressure.url}/orders`, { method: 'POST', body: '{}', retry: { idempotencyKey: true, onRetry: () => void (healthy = true) } });
    expect(keyed.status).toBe(200);
    const seen = pressure.at('/orders').slice(1);
    expect(seen.map((a) => a.status)).toEqual([503, 200]);
    const key = seen[0]!.request['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.request['idempotency-key']).toBe(key);
    expect(await keyed.json()).toEqual({ key });
  });
});
