import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import type { PollEvent } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { empty, json, lines, routes } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  clearCooldowns();
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', body: '{}' } as const;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("the pace: the start's Retry-After, the interval, the monitor's Retry-After", () => {
  it('a wait is announced with when it ends: now plus its delay', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { id: 1 })] });
    const { env } = instantEnv();
    const events: PollEvent[] = [];
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { env: { ...env, now: () => 1_000_000 }, interval: 750, onEvent: (e) => events.push(e) } });
    expect(events.filter((e) => e.type === 'wait')).toEqual([{ type: 'wait', delay: 750, at: 1_000_750 }]);
  });

  it("the start's Retry-After and the monitor's are capped by maxRetryAfter", async () => {
    server = await routes({
      'POST /jobs': [empty(202, { location: '/jobs/1', 'retry-after': '600' })],
      'GET /jobs/1': [json(200, { status: 'Running' }, { 'retry-after': '900' }), json(200, { status: 'Succeeded' })],
    });
    const { env, delays } = instantEnv();
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 100, maxRetryAfter: 10_000 } });
    // Both are cut to the 10 s cap, a hard one: spread below it, over [10 s / 1.2, 10 s] (random 0.5, half-way).
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBe(Math.ceil(10_000 / 1.2 + (10_000 - 10_000 / 1.2) * 0.5));
    expect(delays[1]).toBe(Math.ceil(10_000 / 1.2 + (10_000 - 10_000 / 1.2) * 0.5));
  });

  it("a monitor's Retry-After below the interval does not shorten it", async () => {
    server = await routes({
      'POST /jobs': [empty(202, { location: '/jobs/1', 'retry-after': '1' })],
      'GET /jobs/1': [json(200, { status: 'Running' }, { 'retry-after': '1' }), json(200, { status: 'Succeeded' })],
    });
    const { env, delays } = instantEnv();
    await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 5000 } });
    // The start's 1 s (spread by 10 %, random 0.5) before the first poll; after the monitor's, the 5 s interval.
    expect(delays).toEqual([1100, 5000]);
  });

  it('cooldown: false reaches the result\'s request too: a 503 of the start cools nothing down for it', async () => {
    server = await routes({
      'POST /jobs': [empty(503, { 'retry-after': '2' }), empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/results/1' })],
      'GET /results/1': [json(200, { ok: true })],
    });
    const { env, delays } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 0, idempotencyKey: true, cooldown: false } })).toEqual({ ok: true });
    // The start's own retry waits the Retry-After; nothing else waits.
    expect(delays).toEqual([2200]);
    expect(lines(server)).toEqual(['POST /jobs', 'POST /jobs', 'GET /ops/1', 'GET /results/1']);
  });

  it('a 202 without Retry-After: the first poll waits interval, not 0', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [empty(202), json(200, { id: 1 })] });
    const { env, delays } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 750 } })).toEqual({ id: 1 });
    expect(delays).toEqual([750, 750]);
  });

  it('interval 0 without Retry-After: the first poll goes out at once, with no wait event', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { id: 1 })] });
    const { env, delays } = instantEnv();
    const events: string[] = [];
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, interval: 0, onEvent: (e) => events.push(e.type) } })).toEqual({ id: 1 });
    expect(delays).toEqual([]);
    expect(events).not.toContain('wait');
  });
});

describe('the verdicts: isDone and isFailed, synchronous or not', () => {
  it('an async isDone is awaited: a promise of false is not done', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { n: 1 }), json(200, { n: 2 }), json(200, { n: 3 })] });
    const { env } = instantEnv();
    const seen: number[] = [];
    const result = await pollOperation<unknown, { n: number }>(`${server.url}/jobs`, {
      ...post,
      operation: {
        env,
        isDone: async (status) => {
          seen.push(status.n);
          await tick();
          return status.n === 3;
        },
      },
    });
    expect(result).toEqual({ n: 3 });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('an async isFailed is awaited: a promise of false succeeded, of true failed', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { state: 'DONE' })] });
    const { env } = instantEnv();
    const isFailed = (failed: boolean) => async () => {
      await tick();
      return failed;
    };
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, isFailed: isFailed(false) } })).toEqual({ state: 'DONE' });
    await expect(pollOperation(`${server.url}/jobs`, { ...post, operation: { env, isFailed: isFailed(true) } })).rejects.toMatchObject({ name: 'OperationFailedError', status: 'failed' });
  });

  it('isDone alone: it says when it is over, whatever the conventions say; and then it succeeded', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { status: 'Running', step: 1 }), json(200, { status: 'Running', step: 2 })] });
    const { env } = instantEnv();
    const result = await pollOperation<unknown, { step: number }>(`${server.url}/jobs`, { ...post, operation: { env, isDone: (s) => s.step === 2 } });
    expect(result).toEqual({ status: 'Running', step: 2 });
    expect(lines(server)).toEqual(['POST /jobs', 'GET /jobs/1', 'GET /jobs/1']);
  });

  it('isFailed alone: the conventions still say when it is over, isFailed how', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { location: '/jobs/1' })], 'GET /jobs/1': [json(200, { status: 'Running' }), json(200, { status: 'Failed' })] });
    const { env } = instantEnv();
    // The body says Failed; isFailed says otherwise, and it has the last word.
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, isFailed: () => false } })).toEqual({ status: 'Failed' });
    expect(lines(server)).toEqual(['POST /jobs', 'GET /jobs/1', 'GET /jobs/1']);
  });
});
