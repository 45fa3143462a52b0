import { describe, expect, it } from 'vitest';
import { constant, createRetryBudget, retry } from '../../src/index.js';
import { retryDecision, type RetryPolicy } from '../../src/policy/retry-decision.js';
import { recordingEnv } from '../helpers/env.js';

const networkError = (): TypeError => new TypeError('Failed to fetch');

describe('createRetryBudget', () => {
  it("starts full with the AWS SDK's standard-mode defaults", () => {
    const budget = createRetryBudget();
    expect([budget.available, budget.capacity, budget.retryCost, budget.timeoutCost, budget.successRefund]).toEqual([500, 500, 5, 10, 1]);
  });

  it('pays what it can, refuses what it cannot, and refills up to capacity', () => {
    const budget = createRetryBudget({ capacity: 12, successRefund: 2 });
    expect(budget.withdraw(10)).toBe(true);
    expect(budget.withdraw(5)).toBe(false);
    expect(budget.available).toBe(2);
    budget.refund();
    expect(budget.available).toBe(4);
    for (let i = 0; i < 10; i++) budget.refund();
    expect(budget.available).toBe(12);
  });

  it.each([
    [{ capacity: -1 }, 'Expected `capacity` to be a finite number >= 0'],
    [{ retryCost: Number.POSITIVE_INFINITY }, 'Expected `retryCost` to be a finite number >= 0'],
    [{ timeoutCost: '10' }, 'Expected `timeoutCost` to be a finite number >= 0'],
    [{ successRefund: Number.NaN }, 'Expected `successRefund` to be a finite number >= 0'],
  ])('refuses %o with a TypeError naming the option', (options, message) => {
    expect(() => createRetryBudget(options as never)).toThrow(new TypeError(message));
  });
});

describe('retryDecision prices a retry for a budget', () => {
  const policy: RetryPolicy = { retries: 3, backoff: constant(100), maxRetryAfter: 300_000, interval: 0, countPaced: true, isRetryableStatus: () => true };
  const prices = { retryCost: 5, timeoutCost: 10 };

  it('charges retryCost, or timeoutCost after a timeout', () => {
    expect(retryDecision({ type: 'network', error: 1 }, 0, policy, 0, 0, prices)).toMatchObject({ retry: true, cost: 5 });
    expect(retryDecision({ type: 'timeout', error: 1 }, 0, policy, 0, 0, prices)).toMatchObject({ retry: true, cost: 10 });
    const paced = { type: 'status' as const, status: 503, headers: new Headers({ 'retry-after': '1' }) };
    expect(retryDecision(paced, 0, policy, 0, 0, prices)).toMatchObject({ retry: true, cost: 5, delay: 1000 });
  });

  it('prices nothing without a budget, and exhaustion comes first', () => {
    expect(retryDecision({ type: 'network', error: 1 }, 0, policy, 0, 0)).not.toHaveProperty('cost');
    expect(retryDecision({ type: 'network', error: 1 }, 3, policy, 0, 0, prices)).toMatchObject({ retry: false, reason: 'exhausted' });
  });
});

describe('retry with a budget', () => {
  it('stops retrying when the budget cannot pay, surfacing the error at once', async () => {
    const budget = createRetryBudget({ capacity: 12 });
    const errors: unknown[] = [];
    let calls = 0;
    const error = await retry(
      async () => {
        calls += 1;
        const e = networkError();
        errors.push(e);
        throw e;
      },
      { budget, backoff: constant(1), env: recordingEnv().env },
    ).catch((e: unknown) => e);
    // 12 tokens pay for two retries of 5; the third retry is refused.
    expect(calls).toBe(3);
    expect(error).toBe(errors[2]);
    expect(budget.available).toBe(2);
  });

  it('charges timeoutCost for a retry after a timed-out attempt', async () => {
    const budget = createRetryBudget();
    let calls = 0;
    await retry(() => (++calls === 1 ? new Promise<string>(() => undefined) : Promise.resolve('ok')), {
      budget, attemptTimeout: 5, backoff: constant(1), env: recordingEnv().env,
    });
    // -10 for the retry after the timeout, +1 for the success, capped at 500.
    expect(budget.available).toBe(491);
  });

  it('refunds on success and on a failure that is not retryable, not on a retryable one', async () => {
    const budget = createRetryBudget({ capacity: 100 });
    budget.withdraw(50);
    const env = recordingEnv().env;
    await retry(async () => 'ok', { budget, env });
    expect(budget.available).toBe(51);
    await retry(async () => { throw new RangeError('bug'); }, { budget, env }).catch(() => undefined);
    expect(budget.available).toBe(52);
    await retry(async () => { throw networkError(); }, { budget, env, retries: 1, backoff: constant(1) }).catch(() => undefined);
    expect(budget.available).toBe(47);
  });

  it('never refunds above capacity', async () => {
    const budget = createRetryBudget({ capacity: 10 });
    await retry(async () => 'ok', { budget, env: recordingEnv().env });
    expect(budget.available).toBe(10);
  });
});

describe('what a retry costs', () => {
  it.each([
    ['a network error', new TypeError('Failed to fetch'), 495],
    ['ETIMEDOUT on the cause', new TypeError('fetch failed', { cause: Object.assign(new Error('t'), { code: 'ETIMEDOUT' }) }), 490],
    ["undici's headers timeout", new TypeError('fetch failed', { cause: Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) }), 490],
    ['a TimeoutError', new DOMException('t', 'TimeoutError'), 490],
  ])('%s', async (_label, error, left) => {
    const budget = createRetryBudget();
    await retry(async () => { throw error; }, { budget, retries: 1, backoff: constant(1), env: recordingEnv().env }).catch(() => undefined);
    expect(budget.available).toBe(left);
  });
});
