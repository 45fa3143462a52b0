import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, cooldownScope, originCooldown, recordedCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { realClock } from '../../src/env/clock.js';
import { fetchWithRetry, retry } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// The edges of the origin cooldown that mutation testing found untested: which statuses have a
// scope, the bounds of each comparison, URLs without an origin, the sweep's threshold, and the URL
// of an error that carries a response but no `url` of its own.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

/** A `random` that counts how often it is drawn. */
function counted(value = 0): { random: () => number; draws: () => number } {
  let draws = 0;
  return { random: () => (draws++, value), draws: () => draws };
}

/** Records a 503 cooldown until `until` (noted at 0) on each of `count` distinct origins. */
function coolOrigins(count: number, until: number): void {
  for (let i = 0; i < count; i += 1) originCooldown(`http://127.0.0.1:${20_000 + i}/`).note(503, until, 0);
}

describe('cooldown: the scope of an answer', () => {
  it('a 503 speaks for the origin, a 429 for its route, every other status for nothing', () => {
    const url = new URL('http://127.0.0.1:7001/jobs/42?x=1');
    expect(cooldownScope(url, 503)).toBe('http://127.0.0.1:7001');
    expect(cooldownScope(url, 429)).toBe('http://127.0.0.1:7001/jobs/42');
    for (const status of [200, 408, 428, 430, 500, 502, 504]) expect(cooldownScope(url, status)).toBeUndefined();
  });

  it('a 500 with Retry-After drawn by fetchWithRetry cools nothing, not even its own route', async () => {
    server = await startServer((_req, res) => sendJson(res, 500, {}, { 'retry-after': '10' }));
    const clock = { ...realClock, now: () => 1_000_000, random: () => 0 };
    const response = await fetchWithRetry(`${server.url}/busy`, { retry: { env: clock, retries: 0 } }).catch((e: unknown) => e);
    expect((response as { status: number }).status).toBe(500);
    expect(server.requests.map((r) => r.path)).toEqual(['/busy']);
    expect(recordedCooldowns()).toBe(0);
  });

  it('a URL without an origin (file:, a custom scheme) records no cooldown, so such URLs never hold each other', () => {
    originCooldown('file:///srv/a').note(503, 10_000, 0);
    originCooldown('app://local/a').note(429, 10_000, 0);
    expect(recordedCooldowns()).toBe(0);
    expect(originCooldown('file:///srv/b').delay(1, () => 0)).toBe(0);
  });
});

describe('cooldown: the bounds of its comparisons', () => {
  it('a cooldown that ends exactly now is over: no wait, and no random drawn', () => {
    originCooldown('http://127.0.0.1:7001/a').note(503, 1000, 0);
    const before = counted();
    expect(originCooldown('http://127.0.0.1:7001/b').delay(999, before.random)).toBe(1);
    expect(before.draws()).toBe(1);
    const atEnd = counted();
    expect(originCooldown('http://127.0.0.1:7001/c').delay(1000, atEnd.random)).toBe(0);
    expect(atEnd.draws()).toBe(0);
  });

  it('a shorter cooldown noted later does not cut a longer one short', () => {
    originCooldown('http://127.0.0.1:7001/a').note(503, 5000, 0);
    originCooldown('http://127.0.0.1:7001/b').note(503, 1000, 0);
    expect(originCooldown('http://127.0.0.1:7001/c').delay(2000, () => 0)).toBe(3000);
  });

  it('a cooldown that ends at epoch 0 is none: nothing is recorded (delay would never forget it)', () => {
    // Only a clock before the epoch gets there: now -1000, Retry-After 1000 ms.
    originCooldown('http://127.0.0.1:7001/a').note(503, 1000, -1000);
    expect(recordedCooldowns()).toBe(0);
  });
});

describe('cooldown: the sweep of cooldowns nobody asks about again', () => {
  it('does not run while 256 or fewer are on record', () => {
    originCooldown('http://127.0.0.1:7001/').note(503, 1000, 0);
    originCooldown('http://127.0.0.1:7002/').note(503, 1000, 2000); // the first has passed, and stays on record
    expect(recordedCooldowns()).toBe(2);
  });

  it('runs when a note makes 257, and forgets those that end exactly then', () => {
    coolOrigins(255, 1000);
    originCooldown('http://127.0.0.1:7001/').note(503, 1000, 1000);
    expect(recordedCooldowns()).toBe(256);
    originCooldown('http://127.0.0.1:7002/').note(503, 1000, 1000);
    // The 255 ended at 1000, the time of the note: swept; the two noted at 1000 last until 2000.
    expect(recordedCooldowns()).toBe(2);
  });
});

describe('cooldown: the URL of an error that carries a response', () => {
  it("takes the response's url when the error has no string url of its own (ky's HTTPError)", async () => {
    server = await startServer((_req, res) => sendJson(res, 503, {}, { 'retry-after': '10' }));
    const clock = { ...realClock, now: () => 1_000_000, random: () => 0 };
    const response = await fetch(`${server.url}/outage`);
    await response.arrayBuffer();
    for (const error of [{ name: 'HTTPError', response }, { name: 'HTTPError', response, url: new URL(response.url) }]) {
      clearCooldowns();
      await expect(retry(() => Promise.reject(error), { retries: 0, env: clock })).rejects.toBe(error);
      expect(originCooldown(`${server.url}/job`).delay(1_000_000, () => 0)).toBe(10_000);
    }
  });
});
