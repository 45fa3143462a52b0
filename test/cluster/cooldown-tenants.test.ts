import { afterEach, describe, expect, it } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { until } from './helpers/processes.js';

// cluster.cooldown() is keyed by origin (503) or route (429), never by who
// asks: one tenant's 429 holds every process's polls of that route. A poll
// made with one tenant's credentials scopes itself out by leaving
// cluster.cooldown() out of its `use` (and the realm's with cooldown: false).

const { run, cluster } = redisForTests();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** /jobs: tenant A (by Authorization) is rate-limited (429, Retry-After: 2); any other tenant gets 200. */
const multiTenant = (): Promise<TestServer> =>
  startServer((req, res) =>
    req.headers.authorization === 'Bearer tenant-a' ? sendJson(res, 429, {}, { 'retry-after': '2' }) : sendJson(res, 200, { tenant: req.headers.authorization }),
  );
const as = (tenant: string): RequestInit => ({ headers: { authorization: `Bearer ${tenant}` } });

describe.skipIf(!run)('cluster.cooldown() on a multi-tenant server', () => {
  it("tenant A's 429 in one process holds tenant B's polls of the route in another (documented); without cluster.cooldown(), B's poll is its own", async () => {
    server = await multiTenant();
    const url = `${server.url}/jobs`;
    const [a, b] = [await cluster(), await cluster()];
    const stopA = new AbortController();
    const limited = poll(url, { init: as('tenant-a'), cooldown: false, use: [a.cluster.cooldown()], signal: stopA.signal }).catch(() => undefined);
    const redis = a.client as { keys(pattern: string): Promise<string[]> };
    let announced = false;
    await until(() => (void redis.keys(`${a.prefix}cool:*:429:*`).then((keys) => (announced ||= keys.length > 0)), announced), "tenant A's cooldown in Redis");

    const held: PollEvent[] = [];
    const stopB = new AbortController();
    const sharing = poll(url, { init: as('tenant-b'), cooldown: false, use: [b.cluster.cooldown()], signal: stopB.signal, isDone: () => true, onEvent: (e) => held.push(e) }).catch(
      () => undefined,
    );
    await until(() => held.length > 0, "tenant B's cooldown");
    expect(held[0]!.type).toBe('cooldown');

    const own: PollEvent[] = [];
    const data = await poll(url, { init: as('tenant-b'), cooldown: false, isDone: () => true, onEvent: (e) => own.push(e) });
    expect(data).toEqual({ tenant: 'Bearer tenant-b' });
    expect(own.map((e) => e.type)).toEqual(['request', 'response']);
    // The held poll sent nothing: tenant B's one request is the unscoped poll's.
    expect(server.requests.filter((r) => r.headers.authorization === 'Bearer tenant-b')).toHaveLength(1);
    stopA.abort();
    stopB.abort();
    await Promise.all([limited, sharing]);
  });
});
