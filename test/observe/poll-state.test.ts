import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { createPollState, type PollSnapshot } from '../../src/observe/index.js';
import { scripted, sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { manualClock, settle, switchable, until } from './helpers.js';

interface Job {
  status: 'running' | 'done';
  n?: number;
}
const isDone = (job: Job): boolean => job.status === 'done';
const json =
  (status: number, body: unknown = {}, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);
const hold =
  (aborted: SeenRequest[]) =>
  (res: ServerResponse, seen: SeenRequest): void =>
    void res.on('close', () => res.writableEnded || aborted.push(seen));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What the test reads of each snapshot: status, attempt, limit, nextAttemptAt (relative to `from`), paused. */
const brief = (s: PollSnapshot<Job>, from: number) => [s.status, s.attempt, s.limit, s.nextAttemptAt === undefined ? '-' : s.nextAttemptAt - from, s.paused];

describe('createPollState against a real server, in an injected clock', () => {
  it('is idle and sends nothing before start(); its snapshot is the same object until a change', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const state = createPollState<Job>(server.url, { isDone, retries: 2 });
    expect(state.getSnapshot()).toEqual({ status: 'idle', data: undefined, error: undefined, attempt: 0, limit: 3, nextAttemptAt: undefined, paused: false, paced: false });
    expect(state.getSnapshot()).toBe(state.getSnapshot());
    await settle();
    expect(server.requests).toHaveLength(0);
  });

  it('start() then stop() in the same task sends nothing (StrictMode); start() while polling does nothing', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const fetchCalls: string[] = [];
    const counting: typeof fetch = (input, init) => (fetchCalls.push(String(input)), fetch(input, init));
    const state = createPollState<Job>(server.url, { isDone, fetch: counting });
    state.start();
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', attempt: 1 });
    state.stop();
    expect(state.getSnapshot().status).toBe('idle');
    state.start();
    state.start();
    await until(() => state.getSnapshot().status === 'done');
    expect(fetchCalls).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('attempt follows the counting table: the attempt in flight, the one that failed while waiting, 1 after a success', async () => {
    server = await startServer(scripted([json(503), json(500), json(200, { status: 'running' }), json(502), json(200, { status: 'done' })]));
    const clock = manualClock();
    const state = createPollState<Job>(server.url, { isDone, interval: 1000, retries: 3, backoff: (n) => n * 1000, env: clock });
    const seen: unknown[] = [];
    const from = clock.now();
    state.subscribe(() => seen.push(brief(state.getSnapshot(), from)));
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined, 'the first retry');
    clock.advance(2000);
    await until(() => state.getSnapshot().attempt === 2 && state.getSnapshot().nextAttemptAt !== undefined, 'the second retry');
    clock.advance(3000);
    await until(() => state.getSnapshot().data?.status === 'running');
    clock.advance(1000);
    await until(() => state.getSnapshot().nextAttemptAt !== undefined, 'the third retry');
    clock.advance(2000);
    await until(() => state.getSnapshot().status === 'done');
    expect(seen).toEqual([
      ['polling', 1, 4, '-', false],
      ['polling', 1, 4, 2000, false], // attempt 1 failed: interval + backoff(1)
      ['polling', 2, 4, '-', false],
      ['polling', 2, 4, 5000, false], // attempt 2 failed, at 2000 + 3000
      ['polling', 3, 4, '-', false],
      ['polling', 1, 4, '-', false], // a success: the next request is attempt 1
      ['polling', 1, 4, '-', false], // the body arrives (data changes)
      ['polling', 1, 4, 8000, false],
      ['polling', 2, 4, '-', false],
      ['polling', 1, 4, '-', false],
      ['polling', 1, 4, '-', false],
      ['done', 2, 4, '-', false], // the attempt that got the terminal body
    ]);
    expect(state.getSnapshot().data).toEqual({ status: 'done' });
  });

  it('a Retry-After wait shows in nextAttemptAt; the paced answer is not a failure, so the attempt stays 1', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '5' }), json(200, { status: 'done' })]));
    const clock = manualClock();
    const events: PollEvent[] = [];
    const state = createPollState<Job>(server.url, { isDone, env: clock, onEvent: (e) => events.push(e) });
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    expect(state.getSnapshot()).toMatchObject({ attempt: 1, nextAttemptAt: clock.now() + 5000 });
    clock.advance(5000);
    await until(() => state.getSnapshot().status === 'done');
    expect(state.getSnapshot().attempt).toBe(1);
    expect(events.filter((e) => e.type === 'request').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 1]);
  });

  it('retryNow() ends a Retry-After wait at once; pressed while a request is in flight it does nothing', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([json(503, {}, { 'retry-after': '600' }), hold(aborted)]));
    const clock = manualClock();
    const state = createPollState<Job>(server.url, { isDone, env: clock });
    state.retryNow();
    state.start();
    state.retryNow();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    expect(server.requests).toHaveLength(1);
    state.retryNow();
    await until(() => server!.requests.length === 2);
    expect(state.getSnapshot().nextAttemptAt).toBeUndefined();
    state.retryNow();
    await settle();
    expect(server.requests).toHaveLength(2);
    expect(aborted).toHaveLength(0);
    state.stop();
    await until(() => aborted.length === 1);
  });

  it('paused follows the pause and resume events: hidden, then offline', async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const clock = manualClock();
    const hidden = switchable();
    const offline = switchable();
    let waits = 0;
    const state = createPollState<Job>(server.url, {
      isDone,
      interval: 1000,
      onEvent: (event) => void (event.type === 'wait' && (waits += 1)),
      env: { ...clock, visibility: { hidden: hidden.is, subscribe: hidden.subscribe }, online: { offline: offline.is, subscribe: offline.subscribe } },
    });
    state.start();
    await until(() => waits === 1);
    hidden.set(true);
    clock.advance(1000);
    await until(() => state.getSnapshot().paused, 'the hidden pause');
    expect(server.requests).toHaveLength(1);
    hidden.set(false);
    await until(() => !state.getSnapshot().paused && waits === 2, 'the resume');
    expect(server.requests).toHaveLength(2);
    offline.set(true);
    clock.advance(1000);
    await until(() => state.getSnapshot().paused, 'the offline pause');
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', nextAttemptAt: undefined });
    offline.set(false);
    await until(() => !state.getSnapshot().paused && server!.requests.length === 3);
    state.stop();
    expect(hidden.listeners() + offline.listeners()).toBe(0);
  });

  it('gives up with the error and the last attempt; retry() starts again from attempt 1, keeping the data', async () => {
    server = await startServer(scripted([json(200, { status: 'running' }), json(500), json(500), json(200, { status: 'done' })]));
    const clock = manualClock();
    const state = createPollState<Job>(server.url, { isDone, interval: 1000, retries: 1, backoff: () => 0, env: clock });
    state.start();
    await until(() => state.getSnapshot().data !== undefined);
    clock.advance(1000);
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    clock.advance(1000);
    await until(() => state.getSnapshot().status === 'error');
    const failed = state.getSnapshot();
    expect(failed.error).toBeInstanceOf(PollGaveUpError);
    expect(failed).toMatchObject({ attempt: 2, limit: 2, data: { status: 'running' }, nextAttemptAt: undefined });
    state.retry();
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', attempt: 1, error: undefined, data: { status: 'running' } });
    await until(() => state.getSnapshot().status === 'done');
    expect(server.requests).toHaveLength(4);
  });

  it('stops at once on a 4xx with the HttpError', async () => {
    server = await startServer(scripted([json(404)]));
    const state = createPollState<Job>(server.url, { isDone });
    state.start();
    await until(() => state.getSnapshot().status === 'error');
    const snapshot = state.getSnapshot();
    expect(snapshot.error).toBeInstanceOf(HttpError);
    expect(snapshot).toMatchObject({ attempt: 1 });
  });

  it('stop() aborts the request in flight, keeps the data, and nothing of that run is delivered afterwards', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([json(200, { status: 'running', n: 1 }), hold(aborted)]));
    const clock = manualClock();
    const onUpdate = vi.fn();
    const onEvent = vi.fn();
    const state = createPollState<Job>(server.url, { isDone, interval: 1000, env: clock, onUpdate, onEvent });
    state.start();
    await until(() => state.getSnapshot().data !== undefined);
    clock.advance(1000);
    await until(() => server!.requests.length === 2);
    const listener = vi.fn();
    state.subscribe(listener);
    const events = onEvent.mock.calls.length;
    state.stop();
    expect(state.getSnapshot()).toMatchObject({ status: 'idle', attempt: 0, data: { status: 'running', n: 1 } });
    await until(() => aborted.length === 1);
    clock.advance(60_000);
    await settle();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(onUpdate).toHaveBeenCalledTimes(1);
    expect(onEvent).toHaveBeenCalledTimes(events);
    expect(server.requests).toHaveLength(2);
    expect(clock.pending()).toBe(0);
  });

  it("a caller's signal stops polling as stop() does; an aborted one starts nothing and is never listened to", async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([hold(aborted)]));
    const controller = new AbortController();
    const state = createPollState<Job>(server.url, { signal: controller.signal });
    state.start();
    await until(() => server!.requests.length === 1);
    controller.abort();
    await until(() => aborted.length === 1);
    expect(state.getSnapshot().status).toBe('idle');
    const add = vi.spyOn(controller.signal, 'addEventListener');
    for (let i = 0; i < 20; i += 1) state.retry();
    state.start();
    await settle();
    expect(add).not.toHaveBeenCalled();
    expect(state.getSnapshot().status).toBe('idle');
    expect(server.requests).toHaveLength(1);
  });

  it('reads options given as a function at each start, and callbacks at each call', async () => {
    server = await startServer(scripted([json(200, { status: 'running', n: 1 }), json(200, { status: 'running', n: 2 }), json(200, { status: 'done' })]));
    const clock = manualClock();
    let label = 'a';
    let doneAt = 99;
    const seen: string[] = [];
    const state = createPollState<Job>(server.url, () => ({
      interval: 1000,
      env: clock,
      init: { headers: { 'x-label': label } },
      isDone: (job) => (job.n ?? 0) >= doneAt,
      onUpdate: (job) => void seen.push(`${label}:${job.n}`),
    }));
    state.start();
    await until(() => state.getSnapshot().data?.n === 1);
    label = 'b';
    doneAt = 2;
    clock.advance(1000);
    await until(() => state.getSnapshot().status === 'done');
    expect(seen).toEqual(['a:1', 'b:2']);
    expect(server.requests.map((r) => r.headers['x-label'])).toEqual(['a', 'a']);
  });

  it('a null url polls nothing', async () => {
    const state = createPollState(null);
    state.start();
    state.retry();
    await settle(5);
    expect(state.getSnapshot().status).toBe('idle');
  });

  it('reports a bad option as an error naming it, sending nothing', async () => {
    server = await startServer(scripted([json(200)]));
    const state = createPollState(server.url, { interval: -1 });
    state.start();
    await until(() => state.getSnapshot().status === 'error');
    expect((state.getSnapshot().error as Error).message).toMatch(/^Expected `interval` to be /);
    expect(server.requests).toHaveLength(0);
  });
});
