import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns } from '../../src/cooldown/origin-cooldown.js';
import type { Hold, LoopHooks } from '../../src/engine/hooks.js';
import { fetchWithRetry, poll, retry, type PollEvent } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';
import { fail, network, ok, runScript } from './helpers.js';

// The edges of the one attempt loop (src/engine) that its mutation run found untested: holds a
// hook answers asynchronously, a timed hold the deadline cuts short, what ends a call that keeps
// nothing alive, why a call that may not be retried gives up, and the origin cooldown as the loop
// notes and honours it. A scripted surface (./helpers.ts) or a real server; a virtual clock, so
// every wait is asserted exactly.

let server: TestServer | undefined;
afterEach(async () => {
  clearCooldowns();
  await server?.close();
  server = undefined;
});

const cooldownHold = (ms: number, at: number): Hold => ({ event: { type: 'cooldown', delay: ms, at, origin: 'https://api.example' }, ms });

describe('runAttempts: holds a hook answers asynchronously', () => {
  it('waits out a timed hold that a promise resolves to, then asks again before sending', async () => {
    const clock = new VirtualClock({ start: 1_000_000, random: 0.5, recordDelays: true, auto: true });
    let asked = 0;
    const hook: LoopHooks = {
      hold: async () => {
        asked += 1;
        return asked === 1 ? cooldownHold(700, clock.now() + 700) : undefined;
      },
    };
    const h = runScript([ok('body')], { hooks: [hook] }, clock);
    await expect(h.run).resolves.toBe('body');
    expect(asked).toBe(2);
    expect(clock.delays).toEqual([700]);
    expect(h.events).toEqual([{ type: 'cooldown', delay: 700, at: 1_000_700, origin: 'https://api.example' }]);
    expect(h.sent).toEqual([1]);
  });

  it('asks the next hook when an async hold resolves to nothing, and waits out that one\'s hold', async () => {
    const clock = new VirtualClock({ start: 1_000_000, random: 0.5, recordDelays: true, auto: true });
    const order: string[] = [];
    let second = 0;
    const hooks: LoopHooks[] = [
      {
        hold: async () => {
          order.push('first');
          return undefined;
        },
      },
      {
        hold: () => {
          order.push('second');
          second += 1;
          return second === 1 ? cooldownHold(300, clock.now() + 300) : undefined;
        },
      },
    ];
    const h = runScript([ok('body')], { hooks }, clock);
    await expect(h.run).resolves.toBe('body');
    // After the hold ends, every hook is asked again from the first.
    expect(order).toEqual(['first', 'second', 'first', 'second']);
    expect(clock.delays).toEqual([300]);
  });

  it('tells no `resume` after a timed hold (a cooldown is no pause), but does after a pause', async () => {
    const clock = new VirtualClock({ start: 1_000_000, random: 0.5, recordDelays: true, auto: true });
    let timed = 0;
    const h = runScript([ok('a')], { hooks: [{ hold: () => (timed++ === 0 ? cooldownHold(50, clock.now() + 50) : undefined) }] }, clock);
    await h.run;
    expect(h.events.map((e) => e.type)).toEqual(['cooldown']);

    let hidden = true;
    const listeners = new Set<() => void>();
    const wake = { reason: 'visible', subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l)), ready: () => !hidden };
    const paused = runScript([ok('b')], { hooks: [{ hold: () => (hidden ? { event: { type: 'pause', reason: 'hidden' }, ms: Infinity, wake } : undefined) }] }, clock);
    clock.setTimeout(() => {
      hidden = false;
      for (const l of listeners) l();
    }, 10);
    await paused.run;
    expect(paused.events.map((e) => e.type)).toEqual(['pause', 'resume']);
  });
});

describe('runAttempts: a timed hold the deadline cuts short', () => {
  it('tells the wait the deadline leaves (delay and at), sends nothing more and rejects at the deadline', async () => {
    const clock = new VirtualClock({ start: 1_000_000, random: 0.5, recordDelays: true, auto: true });
    let first = true;
    const hook: LoopHooks = {
      hold: () => {
        if (!first) return undefined;
        first = false;
        return cooldownHold(10_000, clock.now() + 10_000);
      },
    };
    const h = runScript([ok('never')], { hooks: [hook], timeout: 3000 }, clock);
    const error = (await h.run.catch((e: unknown) => e)) as DOMException;
    expect(error.name).toBe('TimeoutError');
    expect(error.message).toBe('Timed out after 3000 ms');
    expect(clock.now()).toBe(1_003_000);
    expect(h.events).toEqual([{ type: 'cooldown', delay: 3000, at: 1_003_000, origin: 'https://api.example' }]);
    expect(h.sent).toEqual([]);
  });
});

describe('runAttempts: what a call leaves behind', () => {
  it('a call that keeps nothing alive stops its deadline and its attempt timer when it ends, whatever the outcome', async () => {
    for (const script of [[ok('done')], [fail(404)]]) {
      const clock = new VirtualClock({ start: 0, random: 0.5, auto: false });
      const h = runScript(script, { timeout: 60_000, attemptTimeout: 5000 }, clock);
      await h.run.catch(() => undefined);
      expect(clock.pending('env')).toBe(0);
    }
  });

  it('a surface that does not keep its result alive gets it freed by the loop: a result or a failure it returns leaves no timer', async () => {
    const clock = new VirtualClock({ start: 0, random: 0.5, auto: false });
    const done = runScript([ok('body')], { timeout: 60_000, attemptTimeout: 5000, result: (s) => `got ${String(s.value)}` }, clock);
    await expect(done.run).resolves.toBe('got body');
    expect(clock.pending('env')).toBe(0);
    const failed = runScript([fail(404)], { timeout: 60_000, attemptTimeout: 5000, fail: (f, reason) => `${f.status} ${reason}` }, clock);
    await expect(failed.run).resolves.toBe('404 not-retryable');
    expect(clock.pending('env')).toBe(0);
  });

  it('retry: no timer left once `fn` resolves, with a timeout and an attempt timeout', async () => {
    const clock = new VirtualClock({ start: 0, random: 0.5, auto: false });
    await expect(retry(async () => 'value', { timeout: 60_000, attemptTimeout: 5000, env: clock.env() })).resolves.toBe('value');
    expect(clock.pending('env')).toBe(0);
  });
});

describe('runAttempts: why a call that may not be retried gives up', () => {
  it('a network failure of a call that may not be retried gives up for the call\'s reason, and the budget hears no end', async () => {
    const ends: boolean[] = [];
    const h = runScript([network()], { retryable: false, unretryable: 'not-idempotent', hooks: [{ end: (okay) => void ends.push(okay) }] });
    await expect(h.run).rejects.toThrow('fetch failed');
    expect(h.gaveUp).toEqual([[1, 'not-idempotent']]);
    expect(h.failedWith).toEqual([['unwanted', 0]]);
    expect(h.events).toEqual([{ type: 'give-up', attempt: 1, reason: 'not-idempotent' }]);
    expect(ends).toEqual([]);
  });

  it('a retried status of such a call gives up for the call\'s reason too; a status the policy never retries, as not-retryable, ending well', async () => {
    const ends: boolean[] = [];
    const declined = runScript([fail(503)], { retryable: false, unretryable: 'body-not-replayable', hooks: [{ end: (okay) => void ends.push(okay) }] });
    await expect(declined.run).rejects.toThrow('status 503');
    expect(declined.gaveUp).toEqual([[1, 'body-not-replayable']]);
    expect(ends).toEqual([]);

    const never = runScript([fail(404)], { retryable: false, unretryable: 'body-not-replayable', hooks: [{ end: (okay) => void ends.push(okay) }] });
    await expect(never.run).rejects.toThrow('status 404');
    expect(never.gaveUp).toEqual([[1, 'not-retryable']]);
    expect(never.events).toEqual([{ type: 'give-up', attempt: 1, reason: 'not-retryable', status: 404 }]);
    expect(ends).toEqual([true]);
  });
});

/** A poll whose first answer notes a cooldown, stopped as soon as it would wait it out (a paced answer is never given up on). */
async function noteThenStop(url: string, env: ReturnType<VirtualClock['env']>, maxRetryAfter?: number): Promise<void> {
  const controller = new AbortController();
  const stopped = poll(url, { env, signal: controller.signal, ...(maxRetryAfter && { maxRetryAfter }), onEvent: (e) => e.type === 'retry' && controller.abort(new Error('stop')) });
  await expect(stopped).rejects.toThrow('stop');
}

describe('the origin cooldown as loop hooks', () => {
  it('a 503 with Retry-After holds the next poll of the origin: its cooldown event says the delay and when it ends', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '5' }), json(200, { status: 'done' })]));
    const clock = new VirtualClock({ start: 5_000_000, random: 0.5, recordDelays: true, auto: true });
    const env = clock.env();
    await noteThenStop(server.url, env);
    const events: PollEvent[] = [];
    const start = clock.now();
    await poll<{ status: string }>(`${server.url}/other`, { env, isDone: (job) => job.status === 'done', onEvent: (e) => events.push(e) });
    // 5000 ms, spread to 5500 at random 0.5; the whole origin waits (503).
    expect(events[0]).toEqual({ type: 'cooldown', delay: 5500, at: start + 5500, origin: server.url });
    expect(server.requests.map((r) => r.path)).toEqual(['/', '/other']);
  });

  it('a 429 with Retry-After holds the next call of the same route', async () => {
    const clock = new VirtualClock({ start: 7_000_000, random: 0.5, recordDelays: true, auto: true });
    const env = clock.env();
    const calls: string[] = [];
    const fetchImpl = (async (input: RequestInfo | URL) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return calls.length === 1 ? new Response(null, { status: 429, headers: { 'retry-after': '2' } }) : new Response('ok');
    }) as typeof fetch;
    const url = 'http://127.0.0.1:9/route';
    const first = await fetchWithRetry(url, { retry: { retries: 0, fetch: fetchImpl, env } });
    expect(first.status).toBe(429);
    const before = clock.delays.length;
    const second = await fetchWithRetry(url, { retry: { fetch: fetchImpl, env } });
    expect(second.status).toBe(200);
    // Held for the route's cooldown (2000 ms, spread to 2200) before the second call sent anything.
    expect(clock.delays.slice(before)).toEqual([2200]);
    expect(calls).toHaveLength(2);
  });

  it('records a cooldown no longer than the noting caller\'s maxRetryAfter', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '60' }), json(200, { status: 'done' })]));
    const clock = new VirtualClock({ start: 9_000_000, random: 0.5, recordDelays: true, auto: true });
    const env = clock.env();
    await noteThenStop(server.url, env, 2000);
    const events: PollEvent[] = [];
    await poll<{ status: string }>(server.url, { env, isDone: (job) => job.status === 'done', onEvent: (e) => events.push(e) });
    // The first caller noted 2000 ms (its cap), not 60 s: the second, with the default cap, waits 2000 spread to 2200.
    expect(events[0]).toMatchObject({ type: 'cooldown', delay: 2200 });
  });
});
