// @vitest-environment jsdom
import { act, cleanup, render, renderHook } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../src/index.js';
import { useFetchWithRetry } from '../../src/react/index.js';
import { scripted, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { advance, answer, FAKE_TIMERS, hold, paths, settle, until } from './helpers.js';

let server: TestServer | undefined;
beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

interface Report {
  rows: number;
}

/** A fetch that records what was asked of it, then sends it for real. */
function countingFetch(calls: string[]): typeof fetch {
  return (input, init) => {
    calls.push(String(input));
    return fetch(input, init);
  };
}

describe('useFetchWithRetry against a real server, in fake time', () => {
  it('retries with the default backoff, showing "attempt n of 4" and the next try while it waits', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // the default backoff's jitter: 500 ms, then 1000 ms
    server = await startServer(scripted([answer(503), answer(500), answer(200, { rows: 3 })]));
    const { result } = renderHook(() => useFetchWithRetry<Report>(`${server!.url}/report`));
    expect(result.current).toMatchObject({ status: 'loading', loading: true, attempt: 1, limit: 4, data: undefined, nextAttemptAt: undefined });
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ attempt: 1, nextAttemptAt: Date.now() + 500, secondsLeft: 1 });
    await advance(499);
    expect(server.requests).toHaveLength(1);
    await advance(1);
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    expect(result.current.nextAttemptAt).toBe(Date.now() + 1000);
    await advance(1000);
    await until(() => !result.current.loading);
    expect(result.current).toMatchObject({ status: 'done', data: { rows: 3 }, error: undefined, attempt: 3, limit: 4, nextAttemptAt: undefined });
    expect(paths(server.requests)).toEqual(['GET /report', 'GET /report', 'GET /report']);
  });

  it.each([400, 401, 403, 404])('fails at once on %i with an HttpError, never retrying', async (status) => {
    server = await startServer(scripted([answer(status)]));
    const { result } = renderHook(() => useFetchWithRetry(server!.url));
    await until(() => !result.current.loading);
    expect(result.current.error).toBeInstanceOf(HttpError);
    expect((result.current.error as HttpError).status).toBe(status);
    expect(result.current.attempt).toBe(1);
    await advance(60_000);
    expect(server.requests).toHaveLength(1);
  });

  it('retries network errors, then gives up with the last one', async () => {
    server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    server = undefined;
    const calls: string[] = [];
    const { result } = renderHook(() => useFetchWithRetry(url, { retries: 2, backoff: () => 1000, fetch: countingFetch(calls) }));
    await until(() => result.current.nextAttemptAt !== undefined);
    await advance(1000);
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    await advance(1000);
    await until(() => !result.current.loading);
    expect(result.current.error).toBeInstanceOf(TypeError);
    expect(result.current.attempt).toBe(3);
    expect(calls).toHaveLength(3);
  });

  it('gives up after `retries` with the last response as an HttpError; retry() starts the count again at 1', async () => {
    server = await startServer(scripted([answer(503), answer(503), answer(503), answer(200, { rows: 1 })]));
    const { result } = renderHook(() => useFetchWithRetry<Report>(server!.url, { retries: 2, backoff: (n) => n * 1000 }));
    await until(() => result.current.nextAttemptAt !== undefined);
    await advance(1000);
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    await advance(1999);
    expect(server.requests).toHaveLength(2);
    await advance(1);
    await until(() => !result.current.loading);
    expect((result.current.error as HttpError).status).toBe(503);
    expect(result.current).toMatchObject({ status: 'error', attempt: 3, limit: 3, nextAttemptAt: undefined });
    act(() => result.current.retry());
    expect(result.current).toMatchObject({ loading: true, attempt: 1, error: undefined });
    await until(() => !result.current.loading);
    expect(result.current).toMatchObject({ data: { rows: 1 }, attempt: 1, error: undefined });
    expect(server.requests).toHaveLength(4);
  });

  it('honours Retry-After in nextAttemptAt', async () => {
    server = await startServer(scripted([answer(429, {}, { 'retry-after': '3' }), answer(200, { rows: 2 })]));
    const { result } = renderHook(() => useFetchWithRetry<Report>(server!.url, { env: { random: () => 0 } }));
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ attempt: 1, nextAttemptAt: Date.now() + 3000, secondsLeft: 3 });
    await advance(2999);
    expect(server.requests).toHaveLength(1);
    await advance(1);
    await until(() => !result.current.loading);
    expect(result.current.data).toEqual({ rows: 2 });
  });

  it('retryNow() skips the wait in progress: the next try goes out at once and the count and backoff carry on', async () => {
    server = await startServer(scripted([answer(503), answer(503), answer(503), answer(200, { rows: 9 })]));
    const delays: number[] = [];
    const { result } = renderHook(() =>
      useFetchWithRetry<Report>(server!.url, { retries: 3, backoff: (n) => n * 10_000, onRetry: ({ delay }) => delays.push(delay) }),
    );
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current.nextAttemptAt).toBe(Date.now() + 10_000);
    act(() => result.current.retryNow());
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    expect(server.requests).toHaveLength(2);
    expect(result.current.nextAttemptAt).toBe(Date.now() + 20_000);
    await advance(20_000);
    await until(() => result.current.attempt === 3 && result.current.nextAttemptAt !== undefined);
    expect(result.current.nextAttemptAt).toBe(Date.now() + 30_000);
    act(() => result.current.retryNow());
    await until(() => !result.current.loading);
    expect(result.current).toMatchObject({ data: { rows: 9 }, attempt: 4 });
    expect(delays).toEqual([10_000, 20_000, 30_000]);
    expect(server.requests).toHaveLength(4);
  });

  it('retryNow() still stops after `retries`, and does nothing while a try is in flight', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([answer(503), hold(aborted)]));
    const { result } = renderHook(() => useFetchWithRetry(server!.url, { retries: 1, backoff: () => 10_000 }));
    await until(() => result.current.nextAttemptAt !== undefined);
    act(() => result.current.retryNow());
    await until(() => server!.requests.length === 2);
    act(() => result.current.retryNow());
    await settle();
    expect(server.requests).toHaveLength(2);
    expect(aborted).toHaveLength(0);
    expect(result.current.loading).toBe(true);
  });

  it('sends the same Idempotency-Key on every attempt, across a skipped wait', async () => {
    server = await startServer(scripted([answer(503), answer(503), answer(201, { rows: 1 })]));
    const { result } = renderHook(() =>
      useFetchWithRetry<Report>(server!.url, { init: { method: 'POST', body: '{}' }, idempotencyKey: true, backoff: () => 1000 }),
    );
    await until(() => result.current.nextAttemptAt !== undefined);
    act(() => result.current.retryNow());
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    await advance(1000);
    await until(() => !result.current.loading);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends exactly one request when mounted under <StrictMode>', async () => {
    server = await startServer(scripted([answer(200, { rows: 1 })]));
    const calls: string[] = [];
    let loading = true;
    function Report() {
      loading = useFetchWithRetry(server!.url, { fetch: countingFetch(calls) }).loading;
      return null;
    }
    render(
      <StrictMode>
        <Report />
      </StrictMode>,
    );
    await until(() => !loading);
    await settle();
    expect(calls).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('aborts the old fetch when the url changes, and the wait on unmount', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer((req, res, seen) => (req.url === '/a' ? hold(aborted)(res, seen) : answer(503)(res)));
    const { result, rerender, unmount } = renderHook(({ path }) => useFetchWithRetry(`${server!.url}${path}`, { backoff: () => 1000 }), {
      initialProps: { path: '/a' },
    });
    await until(() => server!.requests.length === 1);
    rerender({ path: '/b' });
    expect(result.current).toMatchObject({ loading: true, attempt: 1, data: undefined });
    await until(() => result.current.nextAttemptAt !== undefined);
    await until(() => aborted.length === 1);
    unmount();
    await advance(60_000);
    await settle();
    expect(paths(server.requests)).toEqual(['GET /a', 'GET /b']);
  });

  it('stop() stops the wait; loading becomes false, status idle', async () => {
    server = await startServer(scripted([answer(503)]));
    const { result } = renderHook(() => useFetchWithRetry(server!.url, { backoff: () => 1000 }));
    await until(() => result.current.nextAttemptAt !== undefined);
    act(() => result.current.stop());
    expect(result.current).toMatchObject({ status: 'idle', loading: false, nextAttemptAt: undefined, secondsLeft: undefined });
    await advance(60_000);
    await settle();
    expect(server.requests).toHaveLength(1);
  });

  it('reads parse from the latest render and sends nothing for a null url', async () => {
    server = await startServer(scripted([answer(200, { rows: 5 })]));
    const { result, rerender } = renderHook(
      ({ url, factor }: { url: string | null; factor: number }) =>
        useFetchWithRetry<number>(url, { parse: async (r) => ((await r.json()) as Report).rows * factor }),
      { initialProps: { url: null as string | null, factor: 1 } },
    );
    expect(result.current).toMatchObject({ status: 'idle', loading: false });
    await settle();
    expect(server.requests).toHaveLength(0);
    rerender({ url: server.url, factor: 1 });
    rerender({ url: server.url, factor: 10 });
    await until(() => !result.current.loading);
    expect(result.current.data).toBe(50);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a bad option as an error naming it, sending nothing', async () => {
    server = await startServer(scripted([answer(200, {})]));
    const { result } = renderHook(() => useFetchWithRetry(server!.url, { retries: -1 }));
    await until(() => !result.current.loading);
    expect(result.current.error).toBeInstanceOf(TypeError);
    expect((result.current.error as Error).message).toMatch(/`retries`/);
    expect(server.requests).toHaveLength(0);
  });

  it('retryNow() keeps the total deadline: a skipped wait buys no more time; the deadline is met with one last try, then reached', async () => {
    server = await startServer(scripted([answer(503)]));
    const started = Date.now();
    const { result } = renderHook(() => useFetchWithRetry(server!.url, { backoff: (n) => n * 2000, timeout: 5000 }));
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current.nextAttemptAt).toBe(started + 2000);
    await advance(1500);
    act(() => result.current.retryNow());
    // 1500 ms spent: 3500 ms left, and the second retry would wait 4000 ms. The wait is shortened so that one
    // last try starts 1 ms (the last try took no fake time) before the deadline: at 4999 ms.
    await until(() => server!.requests.length === 2 && result.current.nextAttemptAt !== undefined);
    await advance(3498);
    expect(server.requests).toHaveLength(2);
    await advance(1);
    await until(() => server!.requests.length === 3);
    await advance(0);
    // After the last try nothing more is sent, and no retry is announced; the call waits for the deadline itself and times out at it, never before.
    expect(result.current.nextAttemptAt).toBeUndefined();
    expect(result.current.loading).toBe(true);
    await advance(1);
    await until(() => !result.current.loading);
    expect(Date.now()).toBe(started + 5000);
    expect((result.current.error as DOMException).name).toBe('TimeoutError');
    expect((result.current.error as DOMException).message).toBe('Retrying timed out after 5000 ms');
    expect((result.current.error as { cause?: unknown }).cause).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(3);
  });

  it('nextAttemptAt shows the wait the deadline leaves: the last try before it, then none', async () => {
    server = await startServer(scripted([answer(503)]));
    const started = Date.now();
    const { result } = renderHook(() => useFetchWithRetry(server!.url, { backoff: (n) => n * 2000, timeout: 5000 }));
    await until(() => result.current.nextAttemptAt !== undefined);
    await advance(1500);
    act(() => result.current.retryNow());
    await until(() => server!.requests.length === 2 && result.current.nextAttemptAt !== undefined);
    // The second retry's 4000 ms would cross the deadline: the next try is due at 4999 ms, not 5500 ms.
    expect(result.current.nextAttemptAt).toBe(started + 4999);
    await advance(3499);
    await until(() => server!.requests.length === 3);
    await advance(0);
    // No try is due after the last one: none is shown (the call ends at the deadline, 1 ms on).
    expect(result.current.nextAttemptAt).toBeUndefined();
    await advance(1);
    await until(() => !result.current.loading);
  });
});
