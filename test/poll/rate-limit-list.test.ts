import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, poll, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// A draft-8+ RateLimit field lists every quota of the client; the one that
// binds is the one with nothing left, whichever place it has in the list.
// Only the first was read: with a burst quota listed before a spent daily
// one, poll kept its interval and fetchWithRetry retried a 429 at the
// burst's reset, into the same refusal.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';
const BURST_THEN_DAY = '"burst";r=4;t=1, "day";r=0;t=3';
const DAY_THEN_BURST = '"day";r=0;t=3, "burst";r=4;t=1';

describe('poll waits for the quota that binds', () => {
  it.each([BURST_THEN_DAY, DAY_THEN_BURST])('RateLimit: %s on a 2xx: the day\'s 3 s reset plus the spread, not the 100 ms interval', async (ratelimit) => {
    server = await startServer(scripted([json(200, { status: 'pending' }, { ratelimit, 'ratelimit-policy': '"burst";q=5;w=1, "day";q=1000;w=86400' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll<Job>(server.url, { isDone, interval: 100, env });
    // 3000 ms × (1 + 0.2 × 0.5).
    expect(delays).toEqual([3300]);
    expect(server.requests).toHaveLength(2);
  });

  it('no quota spent: the slowest pace of the quotas, the burst\'s 4 left in 1 s (200 ms each), over the 100 ms interval', async () => {
    server = await startServer(scripted([json(200, { status: 'pending' }, { ratelimit: '"burst";r=4;t=1, "day";r=900;t=3' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll<Job>(server.url, { isDone, interval: 100, env });
    // 1000 / (4 + 1) × (1 + 0.2 × 0.5).
    expect(delays).toEqual([220]);
  });

  it('plenty left in every quota: the interval, which already keeps within them', async () => {
    server = await startServer(scripted([json(200, { status: 'pending' }, { ratelimit: '"burst";r=40;t=1, "day";r=900;t=3' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll<Job>(server.url, { isDone, interval: 100, env });
    expect(delays).toEqual([100]);
  });

  it('a day\'s quota nearly spent slows a poller before its 429, though the burst binds no wait', async () => {
    // The day has 2 left in 30 s: one every 10 s; the burst's 4 in 1 s would allow 200 ms.
    server = await startServer(scripted([json(200, { status: 'pending' }, { ratelimit: '"burst";r=4;t=1, "day";r=2;t=30' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 100, env, onEvent: (e) => events.push(e) });
    expect(delays).toEqual([11_000]);
    expect(events.find((e) => e.type === 'wait')).toMatchObject({ delay: 11_000, source: 'ratelimit' });
  });
});

describe('fetchWithRetry retries a 429 after the quota that binds', () => {
  it.each([BURST_THEN_DAY, DAY_THEN_BURST])('RateLimit: %s on a 429: the next attempt after the day\'s reset, not the burst\'s', async (ratelimit) => {
    server = await startServer(scripted([json(429, {}, { ratelimit }), json(200, { ok: true })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(server.url, { retry: { env } });
    expect(response.status).toBe(200);
    expect(delays).toEqual([3300]);
    expect(server.requests).toHaveLength(2);
  });
});
