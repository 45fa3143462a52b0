import { afterEach, describe, expect, it } from 'vitest';
import { isPollGaveUpError, isTimeoutError, poll, type PollEvent } from '../../src/index.js';
import { checkpoint, isCheckpointRefusedError, memoryStore, readCheckpoint, type Checkpoint, type MemoryStore } from '../../src/resume/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { recordingEnv } from '../helpers/env.js';
import type { TestServer } from '../helpers/server.js';
import { empty, json, lines, routes } from '../operation/helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Job = { n: number; done?: boolean };

const saved = (store: MemoryStore, key = 'job'): Checkpoint => readCheckpoint(store.entries.get(key)!, key);

/** Runs a poll under `key` that the caller aborts at its first event of `abortOn`; resolves with what it rejected with. */
async function pollUntil(url: string, store: MemoryStore, abortOn: PollEvent['type'], options: { env: object; retries?: number; timeout?: number; data?: boolean }): Promise<unknown> {
  const controller = new AbortController();
  return poll<Job>(url, {
    env: options.env,
    interval: 1000,
    // The realm's origin cooldown would hold the next run too; a restarted process has none: the checkpoint's wait is what holds.
    cooldown: false,
    ...(options.retries !== undefined && { retries: options.retries }),
    ...(options.timeout !== undefined && { timeout: options.timeout }),
    isDone: (job) => job.done === true,
    signal: controller.signal,
    use: [checkpoint({ store, key: 'job', data: options.data ?? false })],
    onEvent: (event) => {
      if (event.type === abortOn) controller.abort(new Error('closed'));
    },
  }).catch((error: unknown) => error);
}

describe('poll with a checkpoint', () => {
  it('continues after an abort: no request before the saved server wait, conditional on the kept body, which onUpdate gets first; deleted at the end', async () => {
    server = await routes({
      'GET /job': [
        json(200, { n: 1 }, { etag: '"a"' }),
        json(503, {}, { 'retry-after': '30' }),
        (res, seen) => (seen.headers['if-none-match'] === '"a"' ? empty(304, { etag: '"a"' })(res, seen) : json(200, { n: 9 })(res, seen)),
        json(200, { n: 2, done: true }, { etag: '"b"' }),
      ],
    });
    const store = memoryStore();
    const first = recordingEnv();
    const stopped = await pollUntil(`${server.url}/job`, store, 'retry', { env: first.env, data: true });
    expect((stopped as Error).message).toBe('closed');
    const state = saved(store);
    // The 503's Retry-After, 30 s, spread by 10 % (random 0.5), from the time of the answer: the wait the stopped poll had begun.
    expect(state).toMatchObject({ v: 1, kind: 'poll', url: `${server.url}/job`, etag: '"a"', data: { n: 1 }, failures: 0 });
    expect(state.notBefore! - first.clock.now()).toBe(33_000);

    const began = Date.now();
    const second = new VirtualClock({ start: began, random: 0.5, recordDelays: true, auto: true });
    const updates: Job[] = [];
    const job = await poll<Job>(`${server.url}/job`, {
      env: second.env(),
      interval: 1000,
      cooldown: false,
      isDone: (j) => j.done === true,
      onUpdate: (j) => void updates.push(j),
      use: [checkpoint({ store, key: 'job', data: true })],
    });
    expect(job).toEqual({ n: 2, done: true });
    // The kept body first, then the change; the 304 in between gives none.
    expect(updates).toEqual([{ n: 1 }, { n: 2, done: true }]);
    // The first wait of the second run is what is left of the saved one, to the ms.
    expect(second.delays[0]).toBe(Math.ceil(state.notBefore! - began));
    expect(server.requests[2]!.headers['if-none-match']).toBe('"a"');
    expect(lines(server)).toEqual(['GET /job', 'GET /job', 'GET /job', 'GET /job']);
    expect(store.entries.size).toBe(0);
  });

  it('keeps counting failures in a row: a resumed poll gives up after the retries the first run left', async () => {
    server = await routes({ 'GET /job': [json(500, {})] });
    const store = memoryStore();
    const first = recordingEnv();
    await pollUntil(`${server.url}/job`, store, 'retry', { env: first.env, retries: 2 });
    expect(saved(store).failures).toBe(1);
    const error = await poll(`${server.url}/job`, { env: recordingEnv().env, retries: 2, use: [checkpoint({ store, key: 'job' })] }).catch((e: unknown) => e);
    expect(isPollGaveUpError(error)).toBe(true);
    // retries: 2 allows three attempts in a row: one before the restart, two after it.
    expect(server.requests).toHaveLength(3);
    expect(store.entries.size).toBe(0);
  });

  it('without data: true keeps no body and no validators, and the first request after a resume is not conditional', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 }, { etag: '"a"' }), json(200, { n: 2, done: true })] });
    const store = memoryStore();
    await pollUntil(`${server.url}/job`, store, 'wait', { env: recordingEnv().env });
    const state = saved(store);
    expect(state.data).toBeUndefined();
    expect(state.etag).toBeUndefined();
    expect(JSON.stringify(state)).not.toContain('"a"');
    await poll(`${server.url}/job`, { env: recordingEnv().env, isDone: (j: Job) => j.done === true, use: [checkpoint({ store, key: 'job' })] });
    expect(server.requests[1]!.headers['if-none-match']).toBeUndefined();
  });

  it('a checkpoint past its deadline rejects with a TimeoutError, sends nothing, and is deleted', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 })] });
    const store = memoryStore();
    await pollUntil(`${server.url}/job`, store, 'wait', { env: recordingEnv({ auto: false }).env, timeout: 60_000 });
    const { deadline } = saved(store);
    expect(deadline).toBeDefined();
    const later = new VirtualClock({ start: deadline! + 1, auto: true });
    const error = await poll(`${server.url}/job`, { env: later.env(), timeout: 600_000, use: [checkpoint({ store, key: 'job' })] }).catch((e: unknown) => e);
    expect(isTimeoutError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(store.entries.size).toBe(0);
  });

  it('keeps the saved deadline over a new timeout', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 })] });
    const store = memoryStore();
    await pollUntil(`${server.url}/job`, store, 'wait', { env: recordingEnv({ auto: false }).env, timeout: 5000 });
    const { deadline } = saved(store);
    const clock = new VirtualClock({ start: deadline! - 3000, auto: true });
    const error = await poll(`${server.url}/job`, { env: clock.env(), interval: 1000, timeout: 600_000, use: [checkpoint({ store, key: 'job' })] }).catch((e: unknown) => e);
    expect(isTimeoutError(error)).toBe(true);
    expect(clock.now()).toBe(deadline);
  });

  it('a job that finished meanwhile: the first poll sees it done and resolves', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 }), json(200, { n: 2, done: true })] });
    const store = memoryStore();
    await pollUntil(`${server.url}/job`, store, 'wait', { env: recordingEnv().env });
    const job = await poll<Job>(`${server.url}/job`, { env: recordingEnv().env, isDone: (j) => j.done === true, use: [checkpoint({ store, key: 'job' })] });
    expect(job).toEqual({ n: 2, done: true });
    expect(store.entries.size).toBe(0);
  });
});

describe('a checkpoint that is not this call’s is refused, before anything is sent', () => {
  const base = (url: string): Checkpoint => ({ v: 1, kind: 'poll', origin: new URL(url).origin, request: { method: 'GET', url }, url, failures: 0, savedAt: Date.now() });
  const cases: Array<[string, (c: Record<string, unknown>, url: string) => unknown, string]> = [
    ['another version', (c) => ({ ...c, v: 2 }), 'version'],
    ['not JSON', () => '{"v":1,', 'malformed'],
    ['a URL that is not http', (c) => ({ ...c, url: 'javascript:alert(1)' }), 'malformed'],
    ['failures of the wrong type', (c) => ({ ...c, failures: '3' }), 'malformed'],
    ['a notBefore that is no time', (c) => ({ ...c, notBefore: 1e300 }), 'malformed'],
    ['another origin', (c) => ({ ...c, origin: 'https://evil.example', request: { method: 'GET', url: 'https://evil.example/job' }, url: 'https://evil.example/job' }), 'origin'],
    ['another request of the origin', (c, url) => ({ ...c, request: { method: 'GET', url: `${url}/other` }, url: `${url}/other` }), 'request'],
    ['another owner', (c) => ({ ...c, owner: 'a'.repeat(64) }), 'owner'],
    ['too large', (c) => ({ ...c, data: 'x'.repeat(1024 * 1024) }), 'malformed'],
  ];
  for (const [name, tamper, reason] of cases) {
    it(`${name}: ${reason}`, async () => {
      server = await routes({ 'GET /job': [json(200, { n: 1, done: true })] });
      const url = `${server.url}/job`;
      const store = memoryStore();
      const value = tamper(base(url) as unknown as Record<string, unknown>, url);
      store.entries.set('job', typeof value === 'string' ? value : JSON.stringify(value));
      const error = await poll(url, { env: recordingEnv().env, isDone: () => true, use: [checkpoint({ store, key: 'job' })] }).catch((e: unknown) => e);
      expect(isCheckpointRefusedError(error)).toBe(true);
      expect(error).toMatchObject({ name: 'CheckpointRefusedError', reason, key: 'job' });
      expect(server.requests).toHaveLength(0);
      // Left in its store: a newer release may read it; forget() removes it.
      expect(store.entries.has('job')).toBe(true);
    });
  }

  it('with an owner: saved as its hash, refused for another owner, accepted for the same', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 }), json(200, { n: 2, done: true })] });
    const url = `${server.url}/job`;
    const store = memoryStore();
    const controller = new AbortController();
    await poll(url, {
      env: recordingEnv().env,
      signal: controller.signal,
      use: [checkpoint({ store, key: 'job', owner: 'alice@example.com' })],
      onEvent: (e) => e.type === 'wait' && controller.abort(),
    }).catch(() => undefined);
    expect(store.entries.get('job')).not.toContain('alice');
    expect(saved(store).owner).toMatch(/^[0-9a-f]{64}$/);
    const error = await poll(url, { env: recordingEnv().env, use: [checkpoint({ store, key: 'job', owner: 'bob@example.com' })] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'owner' });
    await expect(poll(url, { env: recordingEnv().env, isDone: (j: Job) => j.done === true, use: [checkpoint({ store, key: 'job', owner: 'alice@example.com' })] })).resolves.toEqual({ n: 2, done: true });
  });

  it('forget() deletes a refused checkpoint: the next call starts afresh', async () => {
    const store = memoryStore();
    store.entries.set('job', '{"v":7}');
    const job = checkpoint({ store, key: 'job' });
    await job.forget();
    expect(store.entries.size).toBe(0);
  });
});

describe('checkpoint options', () => {
  it('refuses a bad option with a TypeError naming it', () => {
    const store = memoryStore();
    expect(() => checkpoint({ store, key: '' })).toThrow(/`key`/);
    expect(() => checkpoint({ store: {} as never, key: 'a' })).toThrow(/`store`/);
    expect(() => checkpoint({ store, key: 'a', dat: true } as never)).toThrow(/did you mean `data`/);
    expect(() => checkpoint({ key: 'a' } as never)).toThrow(/`store`/);
  });
});

describe('data: true with a body JSON cannot keep', () => {
  it('keeps the rest of the checkpoint, without the body or its validators', async () => {
    server = await routes({ 'GET /job': [json(200, { n: 1 }, { etag: '"a"' })] });
    const store = memoryStore();
    const controller = new AbortController();
    await poll(`${server.url}/job`, {
      env: recordingEnv({ auto: false }).env,
      parse: async () => ({ n: 1n }),
      signal: controller.signal,
      use: [checkpoint({ store, key: 'job', data: true })],
      onEvent: (e) => e.type === 'wait' && controller.abort(),
    }).catch(() => undefined);
    const state = saved(store);
    expect(state.data).toBeUndefined();
    expect(state.etag).toBeUndefined();
    expect(state.notBefore).toBeDefined();
  });
});

describe('pollite/observe (and the framework adapters built on it): the checkpoint in `use`', () => {
  it('a state stopped (a component unmounted, a page reloaded) keeps its checkpoint; the next one shows the kept body at once and continues', async () => {
    const { createPollState } = await import('../../src/observe/index.js');
    server = await routes({
      'GET /job': [json(200, { n: 1 }, { etag: '"a"' }), (res, seen) => (seen.headers['if-none-match'] === '"a"' ? empty(304)(res, seen) : json(200, { n: 9 })(res, seen)), json(200, { n: 2, done: true })],
    });
    const store = memoryStore();
    const options = () => ({ env: recordingEnv({ auto: false }).env, cooldown: false, isDone: (j: Job) => j.done === true, use: [checkpoint({ store, key: 'job', data: true })] });
    const first = createPollState<Job>(`${server.url}/job`, options());
    first.start();
    while (first.getSnapshot().data === undefined || !store.entries.has('job') || saved(store).notBefore === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    first.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(saved(store).data).toEqual({ n: 1 });

    const second = createPollState<Job>(`${server.url}/job`, { ...options(), env: recordingEnv().env });
    const seenData: unknown[] = [];
    second.subscribe(() => seenData.push(second.getSnapshot().data));
    second.start();
    while (second.getSnapshot().status !== 'done') await new Promise((resolve) => setTimeout(resolve, 5));
    // The first body the UI shows is the kept one, before any request of this run is answered.
    expect(seenData.find((d) => d !== undefined)).toEqual({ n: 1 });
    expect(second.getSnapshot().data).toEqual({ n: 2, done: true });
    expect(server.requests.map((r) => r.headers['if-none-match'] ?? null)).toEqual([null, '"a"', '"a"']);
    expect(store.entries.size).toBe(0);
  });
});
