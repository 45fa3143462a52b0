// operation.preferWait and preferWait(): RFC 7240 `Prefer: respond-async, wait=N` against a real
// loopback server that holds a status request until the job changes. Exact waits with a fake
// clock the server advances by each hold (timers fired at once, `random` 0.5); real holds with real
// timers where what is asserted is what the server saw.
import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import type { PollEvent } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { holdingServer, type HoldingServer, type HoldPlan } from './helpers/holding-server.js';
import { instantEnv } from './helpers/instant-env.js';

let server: HoldingServer | undefined;
afterEach(async () => {
  clearCooldowns();
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', body: '{}' } as const;
/** Timers fired at once and recorded, `random` 0.5, and a clock the server's fake holds move. */
const fakeTime = () => {
  const clock = { now: 1_000_000 };
  const { env, delays } = instantEnv();
  return { clock, delays, env: { ...env, now: () => clock.now } };
};
const requests = (events: PollEvent[]) => events.filter((e): e is Extract<PollEvent, { type: 'request' }> => e.type === 'request');
const waits = (events: PollEvent[]) => events.filter((e) => e.type === 'wait').map((e) => (e as { delay: number }).delay);

describe('the requests: Prefer on the start and on every poll, only when asked', () => {
  it('the start asks respond-async, wait=N; every poll wait=N; without preferWait no Prefer at all', async () => {
    server = await holdingServer({ plan: () => ({ apply: false }), onPoll: (n) => n === 1 && server!.change('Succeeded') });
    const { env } = fakeTime();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 100, preferWait: 10_000 } })).toEqual({ result: 42 });
    expect(server.arrivals.map((a) => [a.method, a.path, a.headers.prefer])).toEqual([
      ['POST', '/jobs', 'respond-async, wait=10'],
      ['GET', '/ops/1', 'wait=10'],
      ['GET', '/ops/1', 'wait=10'],
      // The result's request is no status request: it is not held.
      ['GET', '/results/1', undefined],
    ]);
    await server.close();

    server = await holdingServer({ onPoll: () => server!.change('Succeeded') });
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 100 } });
    expect(server.arrivals.map((a) => a.headers.prefer)).toEqual([undefined, undefined, undefined]);
  });

  it("the caller's own Prefer is kept, and a wait it states is left as it is", async () => {
    server = await holdingServer({ plan: () => ({ apply: false }), onPoll: () => server!.change('Succeeded') });
    const { env } = fakeTime();
    await pollOperation(`${server.url}/jobs`, { ...post, headers: { prefer: 'return=minimal' }, operation: { env, preferWait: 2000 } });
    expect(server.arrivals.slice(0, 2).map((a) => a.headers.prefer)).toEqual(['return=minimal, respond-async, wait=2', 'return=minimal, wait=2']);
    await server.close();

    server = await holdingServer({ plan: () => ({ apply: false }), onPoll: () => server!.change('Succeeded') });
    await pollOperation(`${server.url}/jobs`, { ...post, headers: { Prefer: 'respond-async, wait=5' }, operation: { env, preferWait: 2000 } });
    expect(server.arrivals.slice(0, 2).map((a) => a.headers.prefer)).toEqual(['respond-async, wait=5', 'respond-async, wait=5']);
  });

  it('preferWait is a whole number of seconds in ms: a TypeError names it before anything is sent', async () => {
    server = await holdingServer();
    for (const bad of [10, 0, 1500, -1000, Infinity, '10s']) {
      const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { preferWait: bad as number } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      // Named as the option checks name it (`operation.` before it, where they give the path).
      expect((error as TypeError).message).toMatch(/^Expected `(operation\.)?preferWait` to be a whole number of seconds > 0, in ms \(10_000 for 10 s\)$/);
    }
    await expect(pollOperation(`${server.url}/jobs`, { ...post, operation: { preferwait: 1000 } as object })).rejects.toThrow(
      new TypeError('Unknown option `operation.preferwait`: did you mean `operation.preferWait`?'),
    );
    expect(server.arrivals).toEqual([]);
  });
});

describe('the pace: a hold the server applied counts toward the interval; every floor still holds', () => {
  it('applied, applied early, applied with Retry-After, then ignored: exact waits', async () => {
    const plans: HoldPlan[] = [
      { apply: true, fake: 10_000 }, // held all 10 s: the next poll at once
      { apply: true, fake: 500 }, // the job changed after 0.5 s: the rest of the interval
      { apply: true, fake: 10_000, headers: { 'retry-after': '3' } }, // a Retry-After is a floor still (spread by 10 %, random 0.5)
      { apply: false }, // the server stops applying it: the interval, as without preferWait
      { apply: true, fake: 0 },
    ];
    const { clock, env, delays } = fakeTime();
    server = await holdingServer({ clock, plan: (n) => plans[n]!, onPoll: (n) => (n === 1 || n === 4) && server!.change(n === 4 ? 'Succeeded' : 'Running') });
    const events: PollEvent[] = [];
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 2000, preferWait: 10_000, onEvent: (e) => events.push(e) } })).toEqual({ result: 42 });
    expect(delays).toEqual([2000, 0, 1500, 3300, 2000]);
    expect(waits(events)).toEqual([2000, 0, 1500, 3300, 2000]);
    // Each request the server is known to hold says so, for a UI: not the first (nothing known yet), not after it stopped.
    expect(requests(events).map((e) => e.held)).toEqual([undefined, 10_000, 10_000, 10_000, undefined]);
    expect(server.polls().map((a) => [a.status, a.applied])).toEqual([
      [200, true],
      [200, true],
      [304, true],
      [304, false],
      [200, true],
    ]);
  });

  it('a server that ignores Prefer is polled exactly as without it: the interval, the Retry-After', async () => {
    const plans: HoldPlan[] = [{ apply: false }, { apply: false, headers: { 'retry-after': '5' } }, { apply: false }];
    const run = async (preferWait: number | undefined) => {
      const { env, delays } = fakeTime();
      server = await holdingServer({ plan: (n) => plans[n]!, onPoll: (n) => n === 2 && server!.change('Succeeded') });
      const events: PollEvent[] = [];
      await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 750, ...(preferWait && { preferWait }), onEvent: (e) => events.push(e) } });
      await server.close();
      return { delays, held: requests(events).map((e) => e.held) };
    };
    const preferred = await run(10_000);
    expect(preferred.delays).toEqual([750, 750, 5500]);
    expect(preferred.held).toEqual([undefined, undefined, undefined]);
    expect(preferred).toEqual(await run(undefined));
  });
});

describe('the start: respond-async, wait=N', () => {
  const first = async (startPlan: HoldPlan) => {
    const { clock, env, delays } = fakeTime();
    server = await holdingServer({ clock, startPlan, plan: () => ({ apply: false }), onPoll: () => server!.change('Succeeded') });
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 2000, preferWait: 10_000 } });
    await server.close();
    return delays;
  };

  it('a 202 with Preference-Applied: the hold counts toward the first wait; without it, the interval; a Retry-After is a floor', async () => {
    // No wait at all before the first poll: the start was held past the interval.
    expect(await first({ apply: true, fake: 10_000 })).toEqual([]);
    expect(await first({ apply: true, fake: 800 })).toEqual([1200]);
    expect(await first({ apply: false })).toEqual([2000]);
    expect(await first({ apply: true, fake: 10_000, headers: { 'retry-after': '3' } })).toEqual([3300]);
  });

  it('a job over within the hold: the start answers with the result, and nothing is polled', async () => {
    // Over 300 ms into the start's hold (real time): the server answers the held start with the result.
    server = await holdingServer({ startPlan: { apply: true }, onStart: () => setTimeout(() => server!.change('Succeeded'), 300) });
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { preferWait: 10_000 } })).toEqual({ result: 42 });
    expect(server.arrivals.map((a) => [a.method, a.path, a.status])).toEqual([['POST', '/jobs', 200]]);
    expect(server.arrivals[0]!.answeredAt! - server.arrivals[0]!.at).toBeGreaterThanOrEqual(250);
  });
});

describe('real holds, real timers', () => {
  it('each poll is held until the job changes: three polls for three changes, the next sent at once after each', async () => {
    const statuses = ['Running 1', 'Running 2', 'Succeeded'];
    // The job changes 700 ms after each poll arrives: each hold lasts longer than the interval.
    server = await holdingServer({ onPoll: (n) => setTimeout(() => server!.change(statuses[n]!), 700) });
    const events: PollEvent[] = [];
    const updates: unknown[] = [];
    const result = await pollOperation(`${server.url}/jobs`, {
      ...post,
      operation: { interval: 300, preferWait: 10_000, onEvent: (e) => events.push(e), onUpdate: (s) => updates.push(s) },
    });
    expect(result).toEqual({ result: 42 });
    const polls = server.polls();
    expect(polls.map((a) => [a.headers.prefer, a.headers['if-none-match'], a.status, a.applied])).toEqual([
      ['wait=10', undefined, 200, true],
      // Each answered with the version it was held for: v2 after the first change, v3 after the second.
      ['wait=10', '"v2"', 200, true],
      ['wait=10', '"v3"', 200, true],
    ]);
    for (const poll of polls) expect(poll.answeredAt! - poll.at).toBeGreaterThanOrEqual(650);
    // The first poll after the interval; each next one at once, the hold having lasted past the interval.
    expect(waits(events)).toEqual([300, 0, 0]);
    expect(requests(events).map((e) => e.held)).toEqual([undefined, 10_000, 10_000]);
    expect(updates).toEqual([{ status: 'Running 1' }, { status: 'Running 2' }, { status: 'Succeeded', resourceLocation: '/results/1' }]);
  });

  it('requestTimeout is extended by the wait: a held request is not timed out for it', async () => {
    // Nothing changes until the second poll: the first is held its whole 3 s, past the 1 s requestTimeout.
    server = await holdingServer({ onPoll: (n) => n === 1 && server!.change('Succeeded') });
    const events: PollEvent[] = [];
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { interval: 100, requestTimeout: 1000, preferWait: 3000, timeout: 10_000, onEvent: (e) => events.push(e) } });
    const polls = server.polls();
    expect(polls.map((a) => [a.status, a.aborted])).toEqual([
      [200, false],
      [200, false],
    ]);
    expect(polls[0]!.answeredAt! - polls[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
  });

  it("the operation's deadline holds: a held poll is cut off at it, and nothing follows", async () => {
    server = await holdingServer();
    const started = Date.now();
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { interval: 200, timeout: 1500, preferWait: 10_000 } }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(6000);
    await expect.poll(() => server!.polls().map((a) => [a.status, a.aborted])).toEqual([[undefined, true]]);
    expect(server.arrivals).toHaveLength(2);
  });
});
