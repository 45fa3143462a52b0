// preferWait() as a feature of `poll`, with sharing; and where pollOperation's Prefer goes: to a
// monitor on any origin, unlike the caller's own headers.
import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import { paceByData, share } from '../../src/cooperate/index.js';
import { poll, type PollEvent } from '../../src/index.js';
import { pollOperation, preferWait } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { holdingServer, type HoldingServer } from './helpers/holding-server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, routes } from './helpers/routes.js';

let server: HoldingServer | undefined;
let other: TestServer | undefined;
afterEach(async () => {
  clearCooldowns();
  await server?.close();
  await other?.close();
  server = other = undefined;
});

const isDone = (job: { status: string }): boolean => job.status === 'Succeeded';

describe('preferWait() in poll', () => {
  it('every request asks the server to hold it; a held answer is followed at once; request events say held', async () => {
    const statuses = ['Running 1', 'Succeeded'];
    // The job changes 400 ms after each poll arrives: longer than the interval.
    server = await holdingServer({ onPoll: (n) => setTimeout(() => server!.change(statuses[n]!), 400) });
    const events: PollEvent[] = [];
    const job = await poll<{ status: string }>(`${server.url}/ops/1`, { use: [preferWait(1000)], interval: 200, isDone, onEvent: (e) => events.push(e) });
    expect(job).toEqual({ status: 'Succeeded', resourceLocation: '/results/1' });
    const polls = server.polls();
    expect(polls.map((a) => [a.headers.prefer, a.status, a.applied])).toEqual([
      ['wait=1', 200, true],
      ['wait=1', 200, true],
    ]);
    for (const held of polls) expect(held.answeredAt! - held.at).toBeGreaterThanOrEqual(350);
    expect(events.filter((e) => e.type === 'wait')).toMatchObject([{ delay: 0 }]);
    expect(events.filter((e) => e.type === 'request').map((e) => (e as { held?: number }).held)).toEqual([undefined, 1000]);
  });

  it('without onEvent: every request still asks to be held', async () => {
    server = await holdingServer({ onPoll: (n) => setTimeout(() => server!.change(n === 0 ? 'Running 1' : 'Succeeded'), 300) });
    await poll(`${server.url}/ops/1`, { use: [preferWait(2000)], interval: 100, isDone });
    expect(server.polls().map((a) => a.headers.prefer)).toEqual(['wait=2', 'wait=2']);
  });

  it('before share(): the callers of one URL share one held request at a time', async () => {
    server = await holdingServer({ onPoll: (n) => setTimeout(() => server!.change(n === 0 ? 'Running 1' : 'Succeeded'), 300) });
    const url = `${server.url}/ops/1`;
    const [a, b] = await Promise.all([
      poll(url, { use: [preferWait(1000), share()], interval: 100, isDone }),
      poll(url, { use: [preferWait(1000), share()], interval: 100, isDone }),
    ]);
    expect(a).toEqual(b);
    expect(server.polls().map((p) => p.headers.prefer)).toEqual(['wait=1', 'wait=1']);
  });

  it("shortens the wait after every other feature's pace, wherever it stands in use: paceByData's too", async () => {
    for (const use of [
      [preferWait(10_000), paceByData({ min: 1000, max: 8000 })],
      [paceByData({ min: 1000, max: 8000 }), preferWait(10_000)],
    ]) {
      const clock = { now: 1_000_000 };
      const { env, delays } = instantEnv();
      // Held 10 s (past paceByData's 1 s after a change), then 0.5 s (of its 2 s after an unchanged 304).
      const fakes = [10_000, 500, 0];
      server = await holdingServer({ clock, plan: (n) => ({ apply: true, fake: fakes[n]! }), onPoll: (n) => n === 2 && server!.change('Succeeded') });
      await poll(`${server.url}/ops/1`, { use, isDone, env: { ...env, now: () => clock.now } });
      expect(delays).toEqual([0, 1500]);
      expect(server.polls().map((a) => a.status)).toEqual([200, 304, 200]);
      await server.close();
      server = undefined;
    }
  });

  it('takes a whole number of seconds in ms: a TypeError names it', () => {
    for (const bad of [10, 999, 2500, NaN, undefined]) {
      expect(() => preferWait(bad as number)).toThrow(
        new TypeError('Expected `preferWait` to be a whole number of seconds > 0, in ms (10_000 for 10 s)'),
      );
    }
  });
});

describe("where pollOperation's Prefer goes", () => {
  it("to a monitor on another origin, which gets none of the caller's headers; to a trusted one, with them", async () => {
    server = await holdingServer({ onPoll: () => server!.change('Succeeded') });
    other = await routes({ 'POST /jobs': [empty(202, { 'operation-location': `${server.url}/ops/1` })] });
    const headers = { authorization: 'Bearer secret', 'x-api-key': 'secret', prefer: 'return=minimal' };
    await pollOperation(`${other.url}/jobs`, { method: 'POST', body: '{}', headers, operation: { preferWait: 1000, interval: 100, fetchResult: false } });
    expect(other.requests[0]!.headers.prefer).toBe('return=minimal, respond-async, wait=1');
    const [untrusted] = server.polls();
    expect(untrusted!.headers).toMatchObject({ prefer: 'wait=1' });
    expect(untrusted!.headers).not.toHaveProperty('authorization');
    expect(untrusted!.headers).not.toHaveProperty('x-api-key');

    const trustedOrigins = [server.url];
    await pollOperation(`${other.url}/jobs`, { method: 'POST', body: '{}', headers, operation: { preferWait: 1000, interval: 100, fetchResult: false, trustedOrigins } });
    expect(server.polls()[1]!.headers).toMatchObject({ prefer: 'return=minimal, wait=1', authorization: 'Bearer secret', 'x-api-key': 'secret' });
  });
});
