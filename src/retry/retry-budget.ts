import { amount, definedOptions, validateOptions } from '../options/check.js';

/** Options of {@link createRetryBudget}; the defaults are the AWS SDK's "standard" retry mode. */
export interface RetryBudgetOptions {
  /**
   * Most tokens the budget holds; it starts full.
   * @default 500
   */
  capacity?: number;
  /**
   * Tokens one retry costs.
   * @default 5
   */
  retryCost?: number;
  /**
   * Tokens one retry after a timed-out attempt costs: a timeout hints at an
   * overloaded server, so it drains the budget faster.
   * @default 10
   */
  timeoutCost?: number;
  /**
   * Tokens a call that succeeds gives back (never above `capacity`).
   * @default 1
   */
  successRefund?: number;
}

/**
 * A token bucket shared by any number of `retry` / `fetchWithRetry` calls.
 * Every retry must be paid for; successes refill it slowly. While a
 * dependency is down the bucket empties and calls fail after their first
 * try instead of multiplying the load; once the dependency is back,
 * successes refill it. Implement it yourself to share a budget wider
 * (`pollite/cluster` shares one between processes): pollite only reads
 * `retryCost` and `timeoutCost` and calls `withdraw` and `refund`, which
 * may be async.
 */
export interface RetryBudget {
  /** Tokens in the bucket now, where that is known without asking (a local bucket). */
  readonly available?: number;
  /** The most it holds. */
  readonly capacity?: number;
  /** What a retry costs. */
  readonly retryCost: number;
  /** What a retry after a timeout costs. */
  readonly timeoutCost: number;
  /** What a success refunds. */
  readonly successRefund?: number;
  /** Takes `cost` tokens and returns true, or takes nothing and returns false when fewer are left. */
  withdraw(cost: number): boolean | Promise<boolean>;
  /** Gives back `successRefund` tokens, up to `capacity`: called once per call that succeeded. */
  refund(): void | Promise<void>;
}

const BUDGET_DEFAULTS = Object.freeze({ capacity: 500, retryCost: 5, timeoutCost: 10, successRefund: 1 });

const BUDGET_SPEC = { capacity: amount, retryCost: amount, timeoutCost: amount, successRefund: amount };

/**
 * Creates a {@link RetryBudget}: pass the same one to many calls through
 * their `budget` option.
 *
 * @example
 * const budget = createRetryBudget(); // capacity 500, retry 5, timeout 10, refund 1
 * await fetchWithRetry(url, { retry: { budget } });
 */
export function createRetryBudget(options?: RetryBudgetOptions): Required<RetryBudget> & {
  /** Takes `cost` tokens and returns true, or takes nothing and returns false when fewer are left (at once: a local bucket never waits). */
  withdraw(cost: number): boolean;
  /** Gives back `successRefund` tokens, up to `capacity`. */
  refund(): void;
} {
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, BUDGET_SPEC);
  const o = { ...BUDGET_DEFAULTS, ...definedOptions(options) };
  let available = o.capacity;
  return {
    get available() {
      return available;
    },
    capacity: o.capacity,
    retryCost: o.retryCost,
    timeoutCost: o.timeoutCost,
    successRefund: o.successRefund,
    withdraw(cost) {
      if (!(cost >= 0) || cost > available) return false;
      available -= cost;
      return true;
    },
    refund() {
      available = Math.min(o.capacity, available + o.successRefund);
    },
  };
}
