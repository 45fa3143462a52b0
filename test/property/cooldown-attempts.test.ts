import { afterAll, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, retry } from '../../src/index.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { runVirtual, T0, VirtualPage, virtualClock, virtualEnv } from './virtual-world.js';

// Found by the retry properties: once an origin is cooling down (a 503 with
// Retry-After), waiting out that cooldown must not count against the next
// call's attemptTimeout, or the call burns its retries and times out
// without ever sending anything.

const listeners = trackListeners();
afterAll(() => listeners.uninstall());

const busy = (url: string): HttpError => new HttpError(new Response(null, { status: 503, headers: { 'retry-after': '60' } }), url);

describe('origin cooldown and attemptTimeout', () => {
  it('retry: a call made during a 60 s cooldown waits it out, then runs fn within its attemptTimeout', async () => {
    const clock = virtualClock();
    const env = virtualEnv(clock, new VirtualPage(clock), () => 0);
    const url = 'http://cooled-retry.test/x';
    // Call A cools the origin for 60 s, then gives up.
    const first = await runVirtual(clock, retry(() => Promise.reject(busy(url)), { retries: 0, env }));
    expect(first?.ok).toBe(false);
    // Call B, at once: every attempt may take 1 s. Its first failure tells retry the origin, which is cooling down.
    const calls: number[] = [];
    listeners.forget();
    const controller = new AbortController();
    const second = await runVirtual(
      clock,
      retry(
        async () => {
          calls.push(clock.now());
          if (calls.length === 1) throw new HttpError(new Response(null, { status: 500 }), url);
          return 'ok';
        },
        { retries: 2, attemptTimeout: 1000, backoff: () => 0, env, signal: controller.signal },
      ),
    );
    expect(second).toMatchObject({ ok: true, value: 'ok' });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeGreaterThanOrEqual(T0 + 60_000);
    expect(clock.pending('env')).toBe(0);
    expect(listeners.live(), 'listeners left on any signal or EventTarget').toEqual([]);
  });

  it('fetchWithRetry: a call made during a 60 s cooldown sends its request after it, not a TimeoutError with nothing sent', async () => {
    const clock = virtualClock();
    const env = virtualEnv(clock, new VirtualPage(clock), () => 0);
    const sent: number[] = [];
    const fetchImpl = (async () => {
      sent.push(clock.now());
      return sent.length === 1 ? new Response(null, { status: 503, headers: { 'retry-after': '60' } }) : new Response('{}', { status: 200 });
    }) as typeof fetch;
    const url = 'http://cooled-fetch.test/x';
    listeners.forget();
    const first = await runVirtual(clock, fetchWithRetry(url, { retry: { retries: 0, env, fetch: fetchImpl } }));
    expect(first?.ok && first.value.status).toBe(503);
    const second = await runVirtual(clock, fetchWithRetry(url, { retry: { retries: 2, attemptTimeout: 1000, env, fetch: fetchImpl } }));
    expect(second?.ok && second.value.status).toBe(200);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBeGreaterThanOrEqual(T0 + 60_000);
    // The attempt's timer follows the body until it is read, as fetch's signal does.
    expect(clock.pending('env')).toBe(1);
    expect(second?.ok).toBe(true);
    await (second as { value: Response }).value.text();
    expect(clock.pending('env')).toBe(0);
    expect(listeners.live(), 'listeners left once the body is read').toEqual([]);
  });
});
