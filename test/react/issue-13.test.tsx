// @vitest-environment jsdom
// Regression tests for issue 13, written against what the old and the new adapter share (`status`,
// `loading`, `nextAttemptAt`, `retry`, `retryNow`), so that each fails on the adapter before the fix.
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/react/index.js';
import { scripted, startServer, type TestServer } from '../helpers/server.js';
import { answer, FAKE_TIMERS, settle, until } from './helpers.js';

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

describe('issue 13', () => {
  it('useFetchWithRetry().retryNow() sends at once during the Retry-After wait its own previous attempt set', async () => {
    server = await startServer(scripted([answer(503, {}, { 'retry-after': '30' }), answer(200, { rows: 1 })]));
    const { result } = renderHook(() => useFetchWithRetry<{ rows: number }>(server!.url, { env: { random: () => 0 } }));
    await until(() => result.current.nextAttemptAt !== undefined);
    expect(result.current.nextAttemptAt).toBe(Date.now() + 30_000);
    act(() => result.current.retryNow());
    // No fake time passes: the 30 s cooldown the first answer set for this origin must not hold the second attempt.
    await until(() => !result.current.loading);
    expect(result.current.data).toEqual({ rows: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it('usePoll adds no abort listener to an already-aborted options.signal, however often it starts', async () => {
    server = await startServer(scripted([answer(200, { status: 'done' })]));
    const controller = new AbortController();
    controller.abort();
    const { signal } = controller;
    let listening = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      if (args[0] === 'abort') listening += 1;
      add(...args);
    }) as AbortSignal['addEventListener'];
    signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
      if (args[0] === 'abort') listening -= 1;
      remove(...args);
    }) as AbortSignal['removeEventListener'];
    const { result } = renderHook(() => usePoll(server!.url, { signal }));
    await settle();
    for (let i = 0; i < 20; i += 1) act(() => result.current.retry());
    await settle();
    expect(listening).toBe(0);
    expect(result.current.status).toBe('idle');
    expect(server.requests).toHaveLength(0);
  });
});
