import { createRetryBudget, type RetryBudget } from '../index.js';
import { CLUSTER_DEFAULTS, refuse, type ClusterBudgetOptions } from './cluster-options.js';
import { budgetKey } from './keys.js';
import { REFUND, WITHDRAW } from './scripts.js';
import { FAULT, type ClusterStore } from './store.js';

/**
 * A {@link RetryBudget} that every process shares: one token bucket in
 * Redis, withdrawn from and refunded atomically (a Lua script), with the
 * semantics of `createRetryBudget` (capacity 500, retry 5, timeout 10,
 * refund 1 by default). Alongside it the process keeps its own bucket,
 * charged with what it withdrew: when Redis fails, it retries from that
 * one, so it is never worse off than a lone process, and never better.
 */
export function clusterBudget(store: ClusterStore, prefix: string, options: ClusterBudgetOptions = {}): RetryBudget {
  if (typeof options !== 'object' || options === null) refuse('options', 'an object');
  const { name = CLUSTER_DEFAULTS.budgetName, ...bucket } = options;
  if (typeof name !== 'string' || name === '') refuse('name', 'a non-empty string');
  // Validates the options as createRetryBudget does, and is the bucket this process falls back on.
  const local = createRetryBudget(bucket);
  const key = budgetKey(prefix, name);
  const { capacity, retryCost, timeoutCost, successRefund } = local;
  return {
    capacity,
    retryCost,
    timeoutCost,
    successRefund,
    async withdraw(cost) {
      if (!(cost >= 0)) return false;
      const left = await store.run(WITHDRAW, [key], [capacity, cost]);
      if (left === FAULT) return local.withdraw(cost);
      const paid = Number(left) >= 0;
      if (paid) local.withdraw(cost);
      return paid;
    },
    async refund() {
      await store.run(REFUND, [key], [capacity, successRefund]);
      local.refund();
    },
  };
}
