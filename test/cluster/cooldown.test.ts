import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, poll, retry, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { until } from './helpers/processes.js';

/** Waits until Redis holds a key matching `pattern` (a cooldown was announced: that is fire-and-forget). */
async function untilKey(client: object, pattern: string): Promise<void> {
  const redis = client as { keys(pattern: string): Promise<string[]> };
  let found = false;
  await until(() => (void redis.keys(pattern).then((keys) => (found ||= keys.length > 0)), found), `a key ${pattern}`);
}

// The cluster cooldown: two clusters, each with its own client, stand for
// two processes. The realm's own cooldown (one per JavaScript realm, so
// shared by both here) is turned off in the pollers that must learn of a
// cooldown from Redis alone.

const { run, cluster } = redisForTests();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An API: `/down` answers 503 once (with `headers`), `/limited` 429 once, anything else 200 {ok}. */
async function api(headers: Record<string, string>): Promise<TestServer> {
  const failed = new Set<string>();
  return startServer((req, res) => {
    const path = req.url!;
    const status = path === '/down' ? 503 : path === '/limited' ? 429 : 200;
    if (status !== 200 && !failed.has(path)) {
      failed.add(path);
      return sendJson(res, status, {}, headers);
    }
    sendJson(res, 200, { ok: true });
  });
}

const first = (path: string): SeenRequest => server!.requests.find((r) => r.path === path)!;
const described = (e: PollEvent): string => (e.type === 'cooldown' ? `cooldown:${Math.round(e.delay)}` : e.type);

describe.skipIf(!run)('cluster.cooldown() and cluster.fetch()', () => {
  it("a 503 with Retry-After one process meets holds back another's polls of the origin: capped by its own maxRetryAfter, a hard cap (spread below it)", async () => {
    server = await api({ 'retry-after': '2' });
    const a = await cluster();
    const b = await cluster();
    const c = await cluster();
    const once = { interval: 100, cooldown: false, isDone: () => true } as const;
    // The 503 comes after this: the cooldown it starts ends 2 s after it, or later.
    const sent = Date.now();
    const polled = poll(`${server.url}/down`, { ...once, use: [a.cluster.cooldown()] });
    await untilKey(a.client, '*:503');
    const capped: PollEvent[] = [];
    const uncapped: PollEvent[] = [];
    let heldAt = 0;
    await Promise.all([
      polled,
      poll(`${server.url}/other`, { ...once, use: [b.cluster.cooldown()], maxRetryAfter: 1000, env: { random: () => 0.5 }, onEvent: (e) => capped.push(e) }),
      poll(`${server.url}/another`, { ...once, use: [c.cluster.cooldown()], env: { random: () => 1 - 1e-9 }, onEvent: (e) => void (uncapped.push(e), (heldAt ||= Date.now())) }),
    ]);
    // Capped at 1000 ms (its maxRetryAfter): the wait is spread below the cap, over [1000 / 1.2, 1000], here half-way.
    expect(capped.map(described)).toEqual([`cooldown:${Math.ceil(1000 / 1.2 + (1000 - 1000 / 1.2) * 0.5)}`, 'request', 'response']);
    expect(capped[0]).toMatchObject({ origin: server.url });
    // What is left of the 2 s, plus the whole spread: at most 2.4 s, and more than what was left. Left when it was
    // read: at least 2 s less the time from before the 503 to the cooldown event (not a fixed 1.5 s: on a busy
    // machine, finding the key and starting the polls may take longer than half a second).
    const wait = (uncapped[0] as Extract<PollEvent, { type: 'cooldown' }>).delay;
    expect(uncapped.map((e) => e.type)).toEqual(['cooldown', 'request', 'response']);
    expect(wait).toBeGreaterThanOrEqual(Math.floor(1.2 * (2000 - (heldAt - sent))) - 1);
    expect(wait).toBeLessThanOrEqual(2400);
    expect(first('/other').at - first('/down').at).toBeGreaterThanOrEqual(Math.ceil(1000 / 1.2 + (1000 - 1000 / 1.2) * 0.5));
    expect(first('/another').at - first('/down').at).toBeGreaterThanOrEqual(2000);
  });

  it('a 429 cools its route only, on every process; a rate-limit reset alone (no Retry-After) is heard', async () => {
    server = await api({ 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
    const [a, b] = [await cluster(), await cluster()];
    const once = { interval: 100, cooldown: false, isDone: () => true } as const;
    // The 429 comes after this: the cooldown it starts ends 1 s after it, or later.
    const sent = Date.now();
    const polled = poll(`${server.url}/limited`, { ...once, use: [a.cluster.cooldown()] });
    await untilKey(a.client, '*:429:*');
    const route: PollEvent[] = [];
    const other: PollEvent[] = [];
    let heldAt = 0;
    await Promise.all([
      polled,
      poll(`${server.url}/limited`, { ...once, use: [b.cluster.cooldown()], env: { random: () => 0 }, onEvent: (e) => void (route.push(e), (heldAt ||= Date.now())) }),
      poll(`${server.url}/free`, { ...once, use: [b.cluster.cooldown()], onEvent: (e) => other.push(e) }),
    ]);
    expect(route.map((e) => e.type)).toEqual(['cooldown', 'request', 'response']);
    // What is left of the 1 s reset, with no spread (random 0): at least 1 s less the time from before the 429 to
    // the cooldown event (not a fixed half second: finding the key may take longer on a busy machine).
    const wait = (route[0] as Extract<PollEvent, { type: 'cooldown' }>).delay;
    expect(wait).toBeGreaterThanOrEqual(1000 - (heldAt - sent) - 1);
    expect(wait).toBeLessThanOrEqual(1000);
    expect(other.map((e) => e.type)).toEqual(['request', 'response']);
  });

  it('a process waits out its own cooldown once (its retry, with the realm cooldown on): never again for the record of it in Redis', async () => {
    server = await api({ 'retry-after': '1' });
    const a = await cluster();
    const events: PollEvent[] = [];
    await poll(`${server.url}/down`, { interval: 100, use: [a.cluster.cooldown()], isDone: () => true, onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual(['request', 'response', 'retry', 'request', 'response']);
    expect(server.requests).toHaveLength(2);
  });

  it("fetchWithRetry with cluster.fetch(): another process's cooldown is waited out before sending; retry's function can use one too", async () => {
    server = await api({ 'retry-after': '1' });
    const [a, b, c] = [await cluster(), await cluster(), await cluster()];
    const down = await fetchWithRetry(`${server.url}/down`, { retry: { fetch: a.cluster.fetch(), cooldown: false } });
    expect(down.status).toBe(200);
    // a's own retry waited the 1 s out; announce a fresh one for b and c to meet.
    const flaky = await startServer((_req, res, _seen, i) => (i === 0 ? sendJson(res, 503, {}, { 'retry-after': '1' }) : sendJson(res, 200, {})));
    try {
      const noted = await fetchWithRetry(`${flaky.url}/x`, { retry: { fetch: a.cluster.fetch(), retries: 0, cooldown: false } });
      expect(noted.status).toBe(503);
      await untilKey(a.client, `*{${flaky.url}}:503`);
      const [viaFetch, viaRetry] = await Promise.all([
        fetchWithRetry(`${flaky.url}/y`, { retry: { fetch: b.cluster.fetch({ maxRetryAfter: 500 }), cooldown: false } }),
        retry(
          async ({ signal }) => {
            const response = await c.cluster.fetch()(`${flaky.url}/z`, { signal });
            if (!response.ok) throw new HttpError(response);
            return response.status;
          },
          { cooldown: false },
        ),
      ]);
      expect([viaFetch.status, viaRetry]).toEqual([200, 200]);
      const at = (path: string): number => flaky.requests.find((r) => r.path === path)!.at;
      expect(flaky.requests.map((r) => r.path)).toEqual(['/x', '/y', '/z']);
      // Capped at 500 ms, a hard cap: spread below it, over [500 / 1.2, 500].
      expect(at('/y') - at('/x')).toBeGreaterThanOrEqual(Math.floor(500 / 1.2));
      expect(at('/z') - at('/x')).toBeGreaterThanOrEqual(1000);
    } finally {
      await flaky.close();
    }
  });
});
