import { afterEach, describe, expect, it } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// The throttle rule (src/policy/throttle.ts) as poll applies it, over real
// HTTP: the waits poll chose after each answer (random 0: no spread), and
// what the server saw.

type Job = { status: string };
const isDone = (job: Job): boolean => job.status === 'done';
const running = json(200, { status: 'running' });
const done = json(200, { status: 'done' });

/** The delay of every wait and retry poll chose, in order. */
const delaysOf = (events: PollEvent[]): number[] => events.flatMap((e) => (e.type === 'wait' || e.type === 'retry' ? [e.delay] : []));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the pace after a throttle, over real HTTP', () => {
  it('two 429s slow it to four intervals; each success after them takes 40 % off the excess, and the fourth is back at the interval', async () => {
    const limited = json(429, {}, { 'retry-after': '1' });
    server = await startServer(scripted([limited, limited, running, running, running, running, running, done]));
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 1000, env: recordingEnv({ random: 0 }).env, onEvent: (e) => events.push(e) });
    // 429: 1 s × 2 (above its Retry-After of 1 s); 429: × 2 again, four intervals; then 2.8, 2.08 and
    // 1.648 intervals, and the interval from the fourth success on.
    expect(delaysOf(events)).toEqual([2000, 4000, 2800, 2080, 1648, 1000, 1000]);
    expect(server.requests).toHaveLength(8);
  });

  it('a 429 during the recovery slows it again from what is left', async () => {
    const limited = json(429, {}, { 'retry-after': '1' });
    server = await startServer(scripted([limited, running, limited, running, running, done]));
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 1000, env: recordingEnv({ random: 0 }).env, onEvent: (e) => events.push(e) });
    // 2 s; 40 % of the excess off, 1.6 s; × 2, 3.2 s; then 2.32 s and 1.792 s.
    expect(delaysOf(events)).toEqual([2000, 1600, 3200, 2320, 1792]);
  });

  it("a 503's Retry-After is waited as it is, and the pace after it is the interval", async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '2' }), running, running, done]));
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 1000, env: recordingEnv({ random: 0 }).env, onEvent: (e) => events.push(e) });
    expect(delaysOf(events)).toEqual([2000, 1000, 1000]);
    expect(server.requests).toHaveLength(4);
  });
});
