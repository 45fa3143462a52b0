import type { LoopHooks } from '../engine/hooks.js';
import type { RetryBudget } from './retry-budget.js';

/** A retry budget as one loop's hooks: each retry is paid for before its wait (or the call ends), and a call that ends well refunds. */
export const budgetHooks = (budget: RetryBudget): LoopHooks => ({
  afford: (decision) => budget.withdraw(decision.cost!),
  end: (ok) => (ok ? budget.refund() : undefined),
});
