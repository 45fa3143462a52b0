import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooperate/index.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { until, virtualClock } from './helpers/virtual-clock.js';

// The cooldown is keyed by origin (503) or route (429), never by who asks:
// on a multi-tenant API one tenant's 429 quiets every tenant's polls of that
// route in the realm. A poll made with one tenant's credentials scopes
// itself out with `cooldown: false` (it still honours its own Retry-After).

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

/** /jobs: tenant A (by Authorization) is rate-limited (429, Retry-After: 120); any other tenant gets 200. */
const multiTenant = (): Promise<TestServer> =>
  startServer((req, res) =>
    req.headers.authorization === 'Bearer tenant-a' ? sendJson(res, 429, {}, { 'retry-after': '120' }) : sendJson(res, 200, { tenant: req.headers.authorization }),
  );
const described = (e: PollEvent): string => e.type;
const as = (tenant: string): RequestInit => ({ headers: { authorization: `Bearer ${tenant}` } });

describe("the cooldown on a multi-tenant server: by route, not by credential", () => {
  it("tenant A's 429 holds tenant B's poll of the route (documented); with cooldown: false, B's poll is its own", async () => {
    server = await multiTenant();
    const url = `${server.url}/jobs`;
    const clock = virtualClock();
    const stopA = new AbortController();
    const a = poll(url, { init: as('tenant-a'), env: clock.env(), signal: stopA.signal }).catch(() => undefined);
    await until(() => server!.requests.length === 1 && clock.pending() === 1, "tenant A's 429");

    const held: PollEvent[] = [];
    const stopB = new AbortController();
    const b = poll(url, { init: as('tenant-b'), env: clock.env(), signal: stopB.signal, isDone: () => true, onEvent: (e) => held.push(e) }).catch(() => undefined);
    await until(() => held.length === 1, "tenant B's cooldown");
    // At least the 120 s tenant A was told (plus a spread), and nothing sent for tenant B.
    expect(held).toEqual([{ type: 'cooldown', delay: expect.any(Number) as number, at: expect.any(Number) as number, origin: server.url }]);
    expect((held[0] as { delay: number }).delay).toBeGreaterThanOrEqual(120_000);
    expect(server.requests).toHaveLength(1);

    const own: PollEvent[] = [];
    const data = await poll(url, { init: as('tenant-b'), cooldown: false, env: clock.env(), isDone: () => true, onEvent: (e) => own.push(e) });
    expect(data).toEqual({ tenant: 'Bearer tenant-b' });
    expect(own.map(described)).toEqual(['request', 'response']);
    stopA.abort();
    stopB.abort();
    await Promise.all([a, b]);
  });
});
