import { describe, expect, it, vi } from 'vitest';
import { createRetryBudget, fetchWithRetry, poll, retry } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { retryPolicy } from '../../src/tanstack/index.js';
import { REFUSED_URL } from '../helpers/server.js';

// Issue 35: the CLI takes `-i 2s`, so `interval: '2s'` is the mistake a reader makes; the TypeError says the unit,
// with the number the reader meant.
const refusal = async (call: () => unknown): Promise<TypeError> => {
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(TypeError);
  return error as TypeError;
};

describe('a duration given as a string is refused with its unit: milliseconds', () => {
  const fetch = vi.fn(async () => new Response('{}'));

  it.each([
    [{ interval: '2s' }, "Expected `interval` to be a number of milliseconds (2000 for '2s'), got '2s'"],
    [{ interval: '2000' }, "Expected `interval` to be a number of milliseconds (2000 for 2 s), got '2000'"],
    [{ maxRetryAfter: '5m' }, "Expected `maxRetryAfter` to be a number of milliseconds (300000 for '5m'), got '5m'"],
    [{ timeout: '10m' }, "Expected `timeout` to be a number of milliseconds (600000 for '10m'), got '10m'"],
    [{ requestTimeout: '30s' }, "Expected `requestTimeout` to be a number of milliseconds (30000 for '30s'), got '30s'"],
  ])('poll %o', async (options, message) => {
    const error = await refusal(() => poll(REFUSED_URL, { ...options, fetch } as never));
    expect(error.message).toBe(message);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('retry, fetchWithRetry, pollOperation and the TanStack policy say the same, each naming the option where it was given', async () => {
    const fn = vi.fn(async () => 'x');
    expect((await refusal(() => retry(fn, { attemptTimeout: '1s' } as never))).message).toBe(
      "Expected `attemptTimeout` to be a number of milliseconds (1000 for '1s'), got '1s'",
    );
    expect((await refusal(() => fetchWithRetry(REFUSED_URL, { retry: { fetch, timeout: '1m' } as never }))).message).toBe(
      "Expected `retry.timeout` to be a number of milliseconds (60000 for '1m'), got '1m'",
    );
    expect((await refusal(() => pollOperation(REFUSED_URL, { operation: { fetch, timeout: '1h' } as never }))).message).toBe(
      "Expected `operation.timeout` to be a number of milliseconds (3600000 for '1h'), got '1h'",
    );
    expect((await refusal(() => retryPolicy({ maxRetryAfter: '30s' } as never))).message).toBe(
      "Expected `maxRetryAfter` to be a number of milliseconds (30000 for '30s'), got '30s'",
    );
    expect(fn).not.toHaveBeenCalled();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('keeps its words for a bad number, and names no unit where there is none (a budget counts tokens)', async () => {
    expect((await refusal(() => poll(REFUSED_URL, { interval: -1, fetch }))).message).toBe('Expected `interval` to be a finite number >= 0');
    expect((await refusal(() => poll(REFUSED_URL, { timeout: 0, fetch }))).message).toBe('Expected `timeout` to be a finite number > 0');
    expect((await refusal(() => createRetryBudget({ retryCost: '5' } as never))).message).toBe('Expected `retryCost` to be a finite number >= 0');
  });
});
