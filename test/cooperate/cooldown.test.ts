import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, originCooldown, recordedCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { switchable, until, virtualClock } from './helpers/virtual-clock.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  clearCooldowns();
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';
const paths = (server: TestServer): string[] => server.requests.map((r) => r.path);

/** /outage answers `status` with Retry-After `seconds` once, then done; every other path: done. */
async function outageServer(status = 503, seconds = '10', extra: Record<string, string> = {}): Promise<TestServer> {
  let outages = 0;
  const server = await startServer((req, res) => {
    if (req.url === '/outage' && outages++ === 0) return sendJson(res, status, {}, { 'retry-after': seconds, ...extra });
    sendJson(res, 200, { status: 'done' });
  });
  servers.push(server);
  return server;
}

/**
 * The delay one caller of `url` is told when another caller's answer cooled
 * its origin until `untilAt`, after this caller had itself honoured a
 * cooldown until `honoured` (0: none); every note is made at time 0, on a
 * registry cleared first.
 */
function delayFor(untilAt: number, honoured: number, now: number, random: number, maxRetryAfter?: number): number {
  clearCooldowns();
  const url = 'http://127.0.0.1:7001/job';
  const caller = originCooldown(url, maxRetryAfter);
  if (honoured > 0) caller.note(503, honoured, 0);
  originCooldown(url).note(503, untilAt, 0);
  return caller.delay(now, () => random);
}

describe('the delay of a cooldown', () => {
  it.each([
    // until, honoured, now, random → delay
    [1000, 0, 2000, 0.5, 0], // passed
    [5000, 5000, 2000, 0.5, 0], // already honoured
    [5000, 4000, 2000, 0, 3000], // a later cooldown than the one honoured
    [5000, 0, 2000, 0.5, 3300], // 3000 + 10 % spread
    [5000, 0, 2000, 1, 3600], // at most 20 % above
  ])('until %i, honoured %i, now %i, random %f → %i ms', (untilAt, honoured, now, random, delay) => {
    expect(delayFor(untilAt, honoured, now, random)).toBe(delay);
  });

  it("never waits past the caller's own maxRetryAfter: a longer time left is spread below it, a shorter one up to it", () => {
    // 120 s left, capped at 1 s: spread over [1000 / 1.2, 1000], in whole ms (rounded up).
    expect(delayFor(122_000, 0, 2000, 0, 1000)).toBe(834);
    expect(delayFor(122_000, 0, 2000, 0.5, 1000)).toBe(917);
    expect(delayFor(122_000, 0, 2000, 1, 1000)).toBe(1000);
    // Under the cap, the time left is never undercut and the 20 % spread shrinks to fit under the cap.
    expect(delayFor(2500, 0, 2000, 0, 1000)).toBe(500);
    expect(delayFor(2500, 0, 2000, 1, 1000)).toBe(600);
    expect(delayFor(2900, 0, 2000, 0.5, 1000)).toBe(950);
    expect(delayFor(2900, 0, 2000, 1, 1000)).toBe(1000);
  });

  it('is counted as honoured once told: the same cooldown is never waited twice', () => {
    const caller = originCooldown('http://127.0.0.1:7001/job');
    originCooldown('http://127.0.0.1:7001/other').note(503, 5000, 0);
    expect(caller.delay(2000, () => 0)).toBe(3000);
    expect(caller.delay(2500, () => 0)).toBe(0);
  });
});

describe('origin cooldown', () => {
  it('forgets a cooldown once it has passed, so a process that meets many origins keeps only those cooling now', () => {
    const origins = Array.from({ length: 1000 }, (_, i) => originCooldown(`http://127.0.0.1:${2000 + i}/x`));
    origins.forEach((origin, i) => origin.note(503, 1000 + i, 0));
    expect(recordedCooldowns()).toBe(1000);
    const other = originCooldown('http://127.0.0.1:2000/y'); // same origin as the first, another caller
    expect(other.delay(999, () => 0)).toBe(1);
    expect(recordedCooldowns()).toBe(1000);
    expect(other.delay(1000, () => 0)).toBe(0);
    expect(recordedCooldowns()).toBe(999);
    origins.forEach((origin) => origin.delay(5000, () => 0));
    expect(recordedCooldowns()).toBe(0);
    // A forgotten cooldown is really gone: a fresh 503 sets a new one.
    origins[0]!.note(503, 2000, 6000);
    expect(originCooldown('http://127.0.0.1:2000/z').delay(7000, () => 0)).toBe(1000);
  });

  it('origins nobody asks about again are swept when new cooldowns are recorded', () => {
    for (let i = 0; i < 10_000; i += 1) originCooldown(`http://127.0.0.1:${10_000 + i}/`).note(429, 1000, i * 10);
    // Each cooldown lasts 1 s and one arrives every 10 ms: about 100 are live at the end, never more than the sweep threshold + 1.
    expect(recordedCooldowns()).toBeLessThanOrEqual(257);
    expect(recordedCooldowns()).toBeGreaterThanOrEqual(100);
  });

  it('a 503 with Retry-After quiets every other poller of the origin until then, with a spread', async () => {
    const server = await outageServer(503, '10');
    const clock = virtualClock({ random: 0.5 });
    const events: PollEvent[] = [];
    const first = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env() });
    await until(() => server.requests.length === 1, 'the 503');
    await until(() => clock.pending() === 1, 'the retry wait');
    const others = ['/b', '/c', '/d'].map((path) =>
      poll<Job>(`${server.url}${path}`, { isDone, env: clock.env(), onEvent: (e) => path === '/b' && events.push(e) }),
    );
    await until(() => clock.pending() === 4, 'three cooldown waits');
    expect(paths(server)).toEqual(['/outage']);
    expect(events).toEqual([{ type: 'cooldown', delay: 11_000, at: clock.now() + 11_000, origin: server.url }]);
    await clock.advance(10_999);
    expect(paths(server)).toEqual(['/outage']); // the 503's own retry: 10 s * 1.1, same as the others
    await clock.advance(1);
    await Promise.all([first, ...others]);
    expect(paths(server).slice(1).sort()).toEqual(['/b', '/c', '/d', '/outage']);
  });

  it("another caller's Retry-After: 120 holds a poll with maxRetryAfter: 1000 at most 1 s", async () => {
    const server = await outageServer(503, '120');
    const clock = virtualClock({ random: 1 });
    const events: PollEvent[] = [];
    const first = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env() });
    await until(() => clock.pending() === 1, 'the 503');
    const capped = poll<Job>(`${server.url}/b`, { isDone, maxRetryAfter: 1000, env: clock.env(), onEvent: (e) => events.push(e) });
    await until(() => clock.pending() === 2, 'the capped cooldown wait');
    // random 1: the top of the spread below the cap, [1000 / 1.2, 1000], is the cap itself.
    expect(events).toEqual([{ type: 'cooldown', delay: 1000, at: clock.now() + 1000, origin: server.url }]);
    await clock.advance(999);
    expect(paths(server)).toEqual(['/outage']);
    await clock.advance(1);
    await capped;
    expect(paths(server)).toEqual(['/outage', '/b']);
    await clock.advance(144_000);
    await first;
  });

  it('a poller already in its interval wait honours a cooldown set meanwhile', async () => {
    const server = await outageServer(503, '30');
    const clock = virtualClock({ random: 0 });
    let n = 0;
    const steady = poll<Job>(`${server.url}/steady`, { isDone: () => ++n === 2, interval: 1000, env: clock.env() });
    await until(() => server.requests.length === 1);
    const outage = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env() });
    await until(() => server.requests.length === 2 && clock.pending() === 2);
    await clock.advance(1000); // the steady poller's interval ends inside the cooldown
    await until(() => clock.pending() === 2);
    expect(paths(server)).toEqual(['/steady', '/outage']);
    await clock.advance(29_000);
    await Promise.all([steady, outage]);
    expect(paths(server).slice(2).sort()).toEqual(['/outage', '/steady']);
  });

  it('cooldown: false neither waits for a cooldown nor announces one', async () => {
    const server = await outageServer(503, '10');
    const clock = virtualClock();
    const first = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env(), cooldown: false });
    await until(() => server.requests.length === 1 && clock.pending() === 1);
    await poll<Job>(`${server.url}/b`, { isDone, env: clock.env() }); // nothing announced: goes at once
    const other = await outageServer(503, '10');
    const quiet = poll<Job>(`${other.url}/outage`, { isDone, env: clock.env() });
    await until(() => other.requests.length === 1);
    await poll<Job>(`${other.url}/b`, { isDone, env: clock.env(), cooldown: false }); // opted out: goes at once
    expect(paths(other)).toEqual(['/outage', '/b']);
    await clock.advance(12_000);
    await Promise.all([first, quiet]);
  });

  it('only 429 and 503 with a Retry-After cool anything, and only their own origin', async () => {
    for (const [status, header] of [[500, '10'], [503, 'soon'], [503, '0']] as const) {
      const server = await outageServer(status, header);
      const clock = virtualClock();
      const first = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env(), backoff: () => 0 });
      await until(() => server.requests.length >= 1);
      await poll<Job>(`${server.url}/b`, { isDone, env: clock.env() });
      expect(paths(server)).toContain('/b');
      await clock.advance(20_000);
      await first;
    }
    const hot = await outageServer(503, '10');
    const cold = await outageServer();
    const clock = virtualClock();
    const first = poll<Job>(`${hot.url}/outage`, { isDone, env: clock.env() });
    await until(() => hot.requests.length === 1 && clock.pending() === 1);
    await poll<Job>(`${cold.url}/b`, { isDone, env: clock.env() });
    expect(paths(cold)).toEqual(['/b']);
    await clock.advance(12_000);
    await first;
  });

  it('a 429 with Retry-After cools only its route (origin and path): another path of the origin goes at once', async () => {
    const server = await outageServer(429, '10');
    const clock = virtualClock({ random: 0 });
    const first = poll<Job>(`${server.url}/outage`, { isDone, env: clock.env() });
    await until(() => server.requests.length === 1 && clock.pending() === 1, 'the 429 and its retry wait');
    await poll<Job>(`${server.url}/b`, { isDone, env: clock.env() }); // another route: not held
    expect(paths(server)).toEqual(['/outage', '/b']);
    const events: PollEvent[] = [];
    const same = poll<Job>(`${server.url}/outage?again`, { isDone, env: clock.env(), onEvent: (e) => events.push(e) }); // the same route
    await until(() => clock.pending() === 2, 'the cooldown wait of the same route');
    expect(events).toEqual([{ type: 'cooldown', delay: 10_000, at: clock.now() + 10_000, origin: server.url }]);
    expect(paths(server)).toEqual(['/outage', '/b']);
    await clock.advance(10_000);
    await Promise.all([first, same]);
    expect(paths(server).slice(2).sort()).toEqual(['/outage', '/outage?again']);
  });

  it('a wait imposed by the cooldown is honoured when the page becomes visible', async () => {
    const server = await outageServer(503, '10');
    const clock = virtualClock({ random: 0 });
    const page = switchable(false);
    const visibility = { hidden: page.is, subscribe: page.subscribe };
    const first = poll<Job>(`${server.url}/outage`, { isDone, env: { ...clock.env(), visibility } });
    await until(() => clock.pending() === 1);
    const events: PollEvent[] = [];
    const second = poll<Job>(`${server.url}/b`, { isDone, env: { ...clock.env(), visibility }, onEvent: (e) => events.push(e) });
    await until(() => clock.pending() === 2);
    page.set(true);
    page.set(false);
    await clock.advance(5000);
    expect(paths(server)).toEqual(['/outage']);
    expect(events.map((e) => e.type)).toEqual(['cooldown']);
    await clock.advance(5000);
    await Promise.all([first, second]);
    expect(events.map((e) => e.type)).toEqual(['cooldown', 'request', 'response']);
  });
});
