// @vitest-environment jsdom
import { act, cleanup, render, renderHook } from '@testing-library/react';
import { StrictMode, useEffect } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { usePoll } from '../../src/react/index.js';
import { scripted, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { advance, answer, FAKE_TIMERS, hold, isDone, paths, settle, until, type Job } from './helpers.js';

let server: TestServer | undefined;
beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  cleanup();
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

const noRandom = { random: () => 0 };

describe('usePoll against a real server, in fake time', () => {
  it('starts idle, polls every interval after each answer and stops on a terminal state', async () => {
    server = await startServer(
      scripted([answer(200, { status: 'queued' }), answer(200, { status: 'running', progress: 50 }), answer(200, { status: 'done' })]),
    );
    const rendered: string[] = [];
    const { result } = renderHook(() => {
      const view = usePoll<Job>(`${server!.url}/jobs/1`, { isDone, interval: 1000 });
      rendered.push(view.status);
      return view;
    });
    expect(rendered[0]).toBe('idle');
    await until(() => result.current.data?.status === 'queued');
    expect(result.current.status).toBe('polling');
    await advance(999);
    expect(server.requests).toHaveLength(1);
    await advance(1);
    await until(() => result.current.data?.status === 'running');
    await advance(1000);
    await until(() => result.current.status === 'done');
    expect(result.current).toMatchObject({ data: { status: 'done' }, error: undefined, attempt: 1, limit: 9, nextAttemptAt: undefined, paused: false });
    await advance(60_000);
    expect(paths(server.requests)).toEqual(['GET /jobs/1', 'GET /jobs/1', 'GET /jobs/1']);
  });

  it('shows `attempt` of `limit` per the counting table, `nextAttemptAt` and `secondsLeft` while waiting after a failure', async () => {
    server = await startServer(
      scripted([answer(503), answer(500), answer(200, { status: 'running' }), answer(502), answer(200, { status: 'done' })]),
    );
    const { result } = renderHook(() =>
      usePoll<Job>(server!.url, { isDone, interval: 1000, retries: 3, backoff: (n) => n * 1000, env: noRandom }),
    );
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ status: 'polling', attempt: 1, limit: 4, nextAttemptAt: Date.now() + 2000, secondsLeft: 2 });
    await advance(1000);
    expect(result.current.secondsLeft).toBe(1);
    await advance(999);
    expect(server.requests).toHaveLength(1);
    expect(result.current.attempt).toBe(1);
    await advance(1);
    await until(() => result.current.attempt === 2 && result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ nextAttemptAt: Date.now() + 3000, secondsLeft: 3 });
    await advance(3000);
    await until(() => result.current.data?.status === 'running');
    expect(result.current).toMatchObject({ status: 'polling', attempt: 1, nextAttemptAt: undefined, secondsLeft: undefined });
    await advance(1000);
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ attempt: 1, nextAttemptAt: Date.now() + 2000 });
    await advance(2000);
    await until(() => result.current.status === 'done');
    expect(result.current.attempt).toBe(2);
    expect(server.requests).toHaveLength(5);
  });

  it("shows a Retry-After wait in `nextAttemptAt` without counting it as a failure; retryNow() ends it at once", async () => {
    server = await startServer(scripted([answer(503, {}, { 'retry-after': '5' }), answer(503, {}, { 'retry-after': '600' }), answer(200, { status: 'done' })]));
    const { result } = renderHook(() => usePoll<Job>(server!.url, { isDone, interval: 1000, env: noRandom }));
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current).toMatchObject({ attempt: 1, nextAttemptAt: Date.now() + 5000, secondsLeft: 5 });
    await advance(4999);
    expect(server.requests).toHaveLength(1);
    await advance(1);
    await until(() => server!.requests.length === 2 && result.current.nextAttemptAt !== undefined);
    // 600 s is above maxRetryAfter (300 s), a hard cap: spread below it, over [250 s, 300 s]; random 0: 250 s.
    expect(result.current).toMatchObject({ attempt: 1, nextAttemptAt: Date.now() + 250_000, secondsLeft: 250 });
    act(() => result.current.retryNow());
    await until(() => result.current.status === 'done');
    expect(server.requests).toHaveLength(3);
  });

  it('sends nothing while the url is null, and starts when it is given', async () => {
    server = await startServer(scripted([answer(200, { status: 'done' })]));
    const { result, rerender } = renderHook(({ url }: { url: string | null }) => usePoll<Job>(url, { isDone }), {
      initialProps: { url: null as string | null },
    });
    await advance(10_000);
    await settle();
    expect(result.current.status).toBe('idle');
    expect(server.requests).toHaveLength(0);
    rerender({ url: server.url });
    await until(() => result.current.status === 'done');
    expect(server.requests).toHaveLength(1);
  });

  it('sends exactly one request when mounted under <StrictMode>', async () => {
    server = await startServer(scripted([answer(200, { status: 'running' }), answer(200, { status: 'done' })]));
    // A fetch aborted at once may never reach the server, so count the calls too.
    const fetchCalls: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      fetchCalls.push(String(input));
      return fetch(input, init);
    };
    let effects = 0;
    let status = '';
    function Job() {
      useEffect(() => {
        effects += 1;
      }, []);
      status = usePoll<Job>(server!.url, { isDone, interval: 1000, fetch: countingFetch }).status;
      return null;
    }
    render(
      <StrictMode>
        <Job />
      </StrictMode>,
    );
    expect(effects).toBe(2); // StrictMode did mount, unmount and remount
    await until(() => server!.requests.length === 1);
    await settle();
    expect(fetchCalls).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    await advance(1000);
    await until(() => status === 'done');
    expect(fetchCalls).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
  });

  it('reads inline callbacks from the latest render: re-rendering never restarts polling', async () => {
    server = await startServer(scripted([answer(200, { status: 'running', progress: 10 }), answer(200, { status: 'running', progress: 20 })]));
    const seen: string[] = [];
    const { result, rerender } = renderHook(
      ({ label, doneAt }: { label: string; doneAt: number }) =>
        usePoll<Job>(server!.url, {
          interval: 1000,
          init: { headers: { 'x-label': label } },
          isDone: (job) => (job.progress ?? 0) >= doneAt,
          onUpdate: (job) => seen.push(`${label}:${job.progress}`),
        }),
      { initialProps: { label: 'a', doneAt: 100 } },
    );
    await until(() => result.current.data?.progress === 10);
    for (const label of ['b', 'c', 'd']) rerender({ label, doneAt: 100 });
    rerender({ label: 'e', doneAt: 20 });
    await settle();
    expect(server.requests).toHaveLength(1);
    await advance(1000);
    await until(() => result.current.status === 'done');
    expect(seen).toEqual(['a:10', 'e:20']);
    // Non-callback options are read when polling starts: the header stays the first render's.
    expect(server.requests.map((r) => r.headers['x-label'])).toEqual(['a', 'a']);
  });

  it('treats a new URL object with the same href as the same url', async () => {
    server = await startServer(scripted([answer(200, { status: 'running' }), answer(200, { status: 'done' })]));
    const { result, rerender } = renderHook(({ url }: { url: URL }) => usePoll<Job>(url, { isDone, interval: 1000 }), {
      initialProps: { url: new URL(`${server.url}/jobs/1`) },
    });
    await until(() => result.current.data?.status === 'running');
    rerender({ url: new URL(`${server!.url}/jobs/1`) });
    await settle();
    expect(server.requests).toHaveLength(1);
    expect(result.current.data).toEqual({ status: 'running' });
  });

  it('aborts the old poller when the url changes and polls the new one from scratch', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer((req, res, seen) => {
      if (req.url === '/jobs/1') hold(aborted)(res, seen);
      else answer(200, { status: 'done', progress: 100 })(res);
    });
    const { result, rerender } = renderHook(({ id }: { id: number }) => usePoll<Job>(`${server!.url}/jobs/${id}`, { isDone }), {
      initialProps: { id: 1 },
    });
    await until(() => server!.requests.length === 1);
    rerender({ id: 2 });
    // The new url's own state from its first render on: never the old one's data.
    expect(result.current).toMatchObject({ status: 'polling', attempt: 1, data: undefined });
    await until(() => result.current.status === 'done');
    await until(() => aborted.length === 1);
    expect(paths(server.requests)).toEqual(['GET /jobs/1', 'GET /jobs/2']);
    expect(paths(aborted)).toEqual(['GET /jobs/1']);
  });

  it('aborts the request in flight on unmount and updates nothing afterwards', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([hold(aborted)]));
    const consoleError = vi.spyOn(console, 'error');
    const onUpdate = vi.fn();
    const onEvent = vi.fn<(event: PollEvent) => void>();
    let renders = 0;
    function Job() {
      renders += 1;
      const { status } = usePoll(server!.url, { onUpdate, onEvent });
      return <p>{status}</p>;
    }
    const view = render(<Job />);
    await until(() => server!.requests.length === 1);
    const rendersBefore = renders;
    view.unmount();
    await until(() => aborted.length === 1);
    await advance(60_000);
    expect(renders).toBe(rendersBefore);
    expect(onUpdate).not.toHaveBeenCalled();
    expect(onEvent.mock.calls.map(([event]) => event.type)).toEqual(['request']);
    expect(consoleError).not.toHaveBeenCalled();
    consoleError.mockRestore();
  });

  it('retry() after giving up starts again from attempt 1 and keeps the data', async () => {
    server = await startServer(
      scripted([answer(200, { status: 'running' }), answer(500), answer(500), answer(200, { status: 'done' })]),
    );
    const { result } = renderHook(() =>
      usePoll<Job>(server!.url, { isDone, interval: 1000, retries: 1, backoff: () => 0 }),
    );
    await until(() => result.current.status === 'polling' && result.current.data !== undefined);
    await advance(1000);
    await until(() => result.current.nextAttemptAt !== undefined);
    await advance(1000);
    await until(() => result.current.status === 'error');
    expect(result.current.error).toBeInstanceOf(PollGaveUpError);
    expect(result.current).toMatchObject({ attempt: 2, limit: 2, data: { status: 'running' }, nextAttemptAt: undefined });
    act(() => result.current.retry());
    expect(result.current).toMatchObject({ status: 'polling', attempt: 1, error: undefined, data: { status: 'running' } });
    await until(() => result.current.status === 'done');
    expect(server.requests).toHaveLength(4);
  });

  it('stop() stops the request in flight and the wait; status idle, data kept; retry() resumes', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([answer(200, { status: 'running' }), hold(aborted), answer(200, { status: 'done' })]));
    const { result } = renderHook(() => usePoll<Job>(server!.url, { isDone, interval: 1000 }));
    await until(() => result.current.data !== undefined);
    act(() => result.current.stop());
    expect(result.current).toMatchObject({ status: 'idle', data: { status: 'running' } });
    await advance(10_000);
    expect(server.requests).toHaveLength(1);
    act(() => result.current.retry());
    await until(() => server!.requests.length === 2);
    act(() => result.current.stop());
    await until(() => aborted.length === 1);
    expect(result.current.status).toBe('idle');
    act(() => result.current.retry());
    await until(() => result.current.status === 'done');
    expect(server.requests).toHaveLength(3);
  });

  it('stops at once on a 4xx with the HttpError', async () => {
    server = await startServer(scripted([answer(404, { error: 'no such job' })]));
    const { result } = renderHook(() => usePoll<Job>(server!.url, { isDone }));
    await until(() => result.current.status === 'error');
    expect(result.current.error).toBeInstanceOf(HttpError);
    expect((result.current.error as HttpError).status).toBe(404);
    await advance(60_000);
    expect(server.requests).toHaveLength(1);
  });

  it("a caller's own signal stops like stop()", async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([hold(aborted)]));
    const controller = new AbortController();
    const { result } = renderHook(() => usePoll<Job>(server!.url, { signal: controller.signal }));
    await until(() => server!.requests.length === 1);
    act(() => controller.abort());
    await until(() => aborted.length === 1);
    expect(result.current.status).toBe('idle');
  });

  it('reports a bad option as an error naming it, sending nothing', async () => {
    server = await startServer(scripted([answer(200, {})]));
    const { result } = renderHook(() => usePoll(server!.url, { interval: -1 }));
    await until(() => result.current.status === 'error');
    expect(result.current.error).toBeInstanceOf(TypeError);
    expect((result.current.error as Error).message).toMatch(/^Expected `interval` to be /);
    expect(server.requests).toHaveLength(0);
  });
});
