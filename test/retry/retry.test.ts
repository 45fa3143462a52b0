import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { constant, HttpError, retry, type RetryContext, type RetryInfo } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';

const networkError = (): TypeError => new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });

/** fn that fails with the given errors in turn, then resolves with 'ok'. */
function failing(errors: unknown[]): { fn: (ctx: RetryContext) => Promise<string>; calls: RetryContext[] } {
  const calls: RetryContext[] = [];
  return {
    calls,
    fn: async (ctx) => {
      calls.push(ctx);
      if (calls.length <= errors.length) throw errors[calls.length - 1];
      return 'ok';
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('retry', () => {
  it('retries retryable failures after the default full-jitter backoff, then resolves', async () => {
    const { env, delays } = recordingEnv({ random: 0.5 });
    const { fn, calls } = failing([networkError(), networkError()]);
    const infos: RetryInfo[] = [];
    await expect(retry(fn, { env, onRetry: (info) => infos.push(info) })).resolves.toBe('ok');
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    // fullJitter({ base: 500, cap: 10000 }) with random 0.5: 0.5 * 500, 0.5 * 1000
    expect(delays).toEqual([250, 500]);
    expect(infos.map(({ attempt, delay }) => [attempt, delay])).toEqual([[1, 250], [2, 500]]);
    expect(infos[0]!.error).toBeInstanceOf(TypeError);
  });

  it('gives up after `retries` retries with the last error itself', async () => {
    const errors = [networkError(), networkError(), networkError()];
    const { fn, calls } = failing([...errors, networkError()]);
    const error = await retry(fn, { retries: 2, backoff: constant(10), env: recordingEnv().env }).catch((e: unknown) => e);
    expect(error).toBe(errors[2]);
    expect(calls).toHaveLength(3);
  });

  it('defaults to 3 retries: 4 attempts', async () => {
    const { fn, calls } = failing(Array.from({ length: 10 }, networkError));
    await expect(retry(fn, { env: recordingEnv().env })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toHaveLength(4);
  });

  it('rejects at once on an error that is not retryable', async () => {
    const bug = new RangeError('bug');
    const { fn, calls } = failing([bug]);
    const { env, delays } = recordingEnv();
    await expect(retry(fn, { env })).rejects.toBe(bug);
    expect(calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('asks a custom (async) shouldRetry with the failed attempt', async () => {
    const seen: Array<[unknown, number]> = [];
    const { fn, calls } = failing(['a', 'b', 'stop']);
    const error = await retry(fn, {
      env: recordingEnv().env,
      shouldRetry: async (e, { attempt }) => {
        seen.push([e, attempt]);
        return e !== 'stop';
      },
    }).catch((e: unknown) => e);
    expect(error).toBe('stop');
    expect(seen).toEqual([['a', 1], ['b', 2], ['stop', 3]]);
    expect(calls).toHaveLength(3);
  });

  it("honours the Retry-After of an error's response as a floor, with up to 20% above", async () => {
    const busy = () => new HttpError(new Response(null, { status: 503, headers: { 'retry-after': '2' } }), 'http://x/');
    const { env, delays } = recordingEnv({ random: 0.5 });
    await expect(retry(failing([busy(), busy()]).fn, { env })).resolves.toBe('ok');
    expect(delays).toEqual([2200, 2200]);
  });

  it('does not retry an HttpError whose status is not retryable', async () => {
    const notFound = new HttpError(new Response(null, { status: 404 }), 'http://x/');
    const { fn, calls } = failing([notFound]);
    await expect(retry(fn, { env: recordingEnv().env })).rejects.toBe(notFound);
    expect(calls).toHaveLength(1);
  });

  it('times out a stuck attempt with attemptTimeout, aborts its signal and retries it', async () => {
    const { env, delays } = recordingEnv({ random: 0 });
    const signals: AbortSignal[] = [];
    const result = await retry(
      ({ attempt, signal }) => {
        signals.push(signal);
        // The first attempt never settles on its own.
        return attempt === 1 ? new Promise<string>(() => undefined) : Promise.resolve('second');
      },
      { env, attemptTimeout: 50, backoff: constant(7) },
    );
    expect(result).toBe('second');
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as DOMException).name).toBe('TimeoutError');
    expect(signals[1]!.aborted).toBe(false);
    // attempt timer, backoff wait, second attempt timer
    expect(delays).toEqual([50, 7, 50]);
  });

  it('retries a timed-out attempt even when shouldRetry would not', async () => {
    let calls = 0;
    const result = await retry(
      () => (++calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('ok')),
      { env: recordingEnv().env, attemptTimeout: 10, shouldRetry: () => false },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(2);
  });
});

describe('shouldRetry and errors that look like timeouts', () => {
  it.each([
    ['an ETIMEDOUT code', () => Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })],
    ['a TimeoutError of its own', () => new DOMException('slow upstream', 'TimeoutError')],
  ])('a custom shouldRetry can refuse %s thrown by fn: one call, that error', async (_what, make) => {
    let calls = 0;
    const thrown = make();
    const error = await retry(
      () => {
        calls += 1;
        return Promise.reject(thrown);
      },
      { env: recordingEnv().env, shouldRetry: () => false },
    ).catch((e: unknown) => e);
    expect(error).toBe(thrown);
    expect(calls).toBe(1);
  });

  it('the default shouldRetry still retries them', async () => {
    let calls = 0;
    const result = await retry(
      () => (++calls === 1 ? Promise.reject(Object.assign(new Error('read ETIMEDOUT'), { code: 'ETIMEDOUT' })) : Promise.resolve('ok')),
      { env: recordingEnv().env },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(2);
  });
});

describe('retry context', () => {
  it('hands fn a live AbortSignal even when nothing can abort the call', async () => {
    const seen: AbortSignal[] = [];
    const { fn } = failing([networkError()]);
    await retry(async (ctx) => {
      seen.push(ctx.signal);
      return fn(ctx);
    }, { env: recordingEnv().env });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen.every((signal) => !signal.aborted)).toBe(true);
  });
});

describe('retry deadline', () => {
  it('meets the deadline: a backoff that would cross it is shortened for one last try, then TimeoutError at the deadline with the last error as cause', async () => {
    vi.useFakeTimers();
    const last = networkError();
    const { fn, calls } = failing([networkError(), networkError(), last, networkError()]);
    const started = Date.now();
    const pending = retry(fn, { timeout: 1000, retries: 10, backoff: (n) => n * 400, env: { random: () => 0 } }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(400); // first wait: 400 ms, within the deadline
    // The second wait (800 ms) would end at 1200 > 1000: shortened to end 1 ms before the deadline (the tries take no time here).
    await vi.advanceTimersByTimeAsync(599);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    const error = (await pending) as DOMException;
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('TimeoutError');
    expect(error.cause).toBe(last);
    // Nothing after the last try: the TimeoutError comes at the deadline, not before.
    expect(Date.now() - started).toBe(1000);
    expect(calls).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts an attempt in flight when the deadline passes, rejecting with the TimeoutError', async () => {
    vi.useFakeTimers();
    const first = networkError();
    const signals: AbortSignal[] = [];
    const pending = retry(
      async ({ attempt, signal }) => {
        signals.push(signal);
        if (attempt === 1) throw first;
        return new Promise<string>(() => undefined);
      },
      { timeout: 1000, backoff: constant(100), env: { random: () => 0 } },
    ).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    const error = (await pending) as DOMException;
    expect(error.name).toBe('TimeoutError');
    expect(error.cause).toBe(first);
    expect(signals[1]!.aborted).toBe(true);
    expect(signals[1]!.reason).toBe(error);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('retry cancellation', () => {
  it('rejects with signal.reason without calling fn when already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    const fn = vi.fn(async () => 'never');
    await expect(retry(fn, { signal: controller.signal })).rejects.toBe(reason);
    expect(fn).not.toHaveBeenCalled();
  });

  it('rejects at once when aborted during a wait, leaving no timers or listeners', async () => {
    const controller = new AbortController();
    const { env, pending } = recordingEnv({ auto: false });
    const { fn, calls } = failing([networkError(), networkError()]);
    const result = retry(fn, { signal: controller.signal, backoff: constant(60_000), timeout: 120_000, attemptTimeout: 5000, env });
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    await Promise.resolve();
    controller.abort();
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(pending()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(calls).toHaveLength(1);
  });

  it('never retries an abort by the caller, even when shouldRetry says yes', async () => {
    const controller = new AbortController();
    let calls = 0;
    const result = retry(
      ({ signal }) => {
        calls += 1;
        controller.abort(new Error('stop'));
        return Promise.reject(signal.reason);
      },
      { signal: controller.signal, shouldRetry: () => true, env: recordingEnv().env },
    );
    await expect(result).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});

describe('retry options', () => {
  it.each([
    [{ retries: -1 }, 'Expected `retries` to be a non-negative integer'],
    [{ retries: 1.5 }, 'Expected `retries` to be a non-negative integer'],
    [{ backoff: 5 }, 'Expected `backoff` to be a function'],
    [{ shouldRetry: true }, 'Expected `shouldRetry` to be a function'],
    [{ onRetry: 'x' }, 'Expected `onRetry` to be a function'],
    [{ signal: {} }, 'Expected `signal` to be an AbortSignal'],
    [{ timeout: Number.NaN }, 'Expected `timeout` to be a finite number > 0'],
    [{ timeout: 0 }, 'Expected `timeout` to be a finite number > 0'],
    [{ attemptTimeout: -1 }, 'Expected `attemptTimeout` to be a finite number > 0'],
    [{ budget: { available: 1 } }, 'Expected `budget` to be a RetryBudget (see createRetryBudget)'],
    [{ env: 'real' }, 'Expected `env` to be an object'],
  ])('refuses %o with a TypeError naming the option', async (options, message) => {
    const fn = vi.fn(async () => 'x');
    const error = await retry(fn, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses a missing fn and a non-object options', async () => {
    await expect(retry(undefined as never)).rejects.toThrow('Expected `fn` to be a function');
    await expect(retry(async () => 1, 5 as never)).rejects.toThrow('Expected `options` to be an object');
  });

  it('refuses a backoff that returns nonsense instead of waiting forever', async () => {
    const { fn } = failing([networkError()]);
    await expect(retry(fn, { backoff: () => Number.NaN, env: recordingEnv().env })).rejects.toThrow(TypeError);
  });
});
