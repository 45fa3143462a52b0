import { createRetryBudget, type RetryBudget } from '../index.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, refuse, type ClusterBudgetOptions } from './cluster-options.js';
import { budgetKey } from './keys.js';
import { REFUND, WITHDRAW } from './scripts.js';
import { FAULT, type ClusterStore } from './store.js';

/**
 * A {@link RetryBudget} that every process shares: one token bucket in
 * Redis, withdrawn from and refunded atomically (a Lua script), with the
 * semantics of `createRetryBudget` (capacity 500, retry 5, timeout 10,
 * refund 1 by default).
 *
 * Alongside it the process keeps a bucket of its own, charged with what it
 * withdrew and refunded. When Redis fails it retries from that one, cut
 * down to what the shared bucket had left when last seen: a process never
 * retries more than it would have alone, and a cluster whose budget was
 * spent does not get a fresh one per process because Redis went away.
 * Back from the fault, its first operation tells a bucket Redis no longer
 * has (restarted, flushed) what it knew of it, rather than starting full.
 */
export function clusterBudget(store: ClusterStore, prefix: string, options: ClusterBudgetOptions = {}): RetryBudget {
  checkObject(options, CLUSTER_OPTION_NAMES.budget);
  const { name = CLUSTER_DEFAULTS.budgetName, ...bucket } = options;
  if (typeof name !== 'string' || name === '') refuse('name', 'a non-empty string');
  // Validates the options as createRetryBudget does, and is the bucket this process falls back on.
  const local = createRetryBudget(bucket);
  const key = budgetKey(prefix, name);
  const { capacity, retryCost, timeoutCost, successRefund } = local;
  /** The shared bucket's tokens, as last seen. */
  let shared = capacity;
  let alone = false;
  const fallBack = (): void => {
    if (alone) return;
    alone = true;
    const excess = local.available - Math.min(local.available, shared);
    if (excess > 0) local.withdraw(excess);
  };
  const seen = (tokens: number): void => {
    alone = false;
    shared = tokens;
  };
  /** What to assume of a bucket Redis does not have: full, unless this process comes back from a fault knowing better. */
  const seed = (): number => (alone ? local.available : capacity);
  return {
    capacity,
    retryCost,
    timeoutCost,
    successRefund,
    async withdraw(cost) {
      if (!(cost >= 0)) return false;
      const reply = await store.run(WITHDRAW, [key], [capacity, cost, seed()]);
      if (reply === FAULT) {
        fallBack();
        return local.withdraw(cost);
      }
      const left = Number(reply);
      if (!(left >= 0)) {
        seen(-1 - left);
        return false;
      }
      seen(left);
      local.withdraw(cost);
      return true;
    },
    async refund() {
      const reply = await store.run(REFUND, [key], [capacity, successRefund, seed()]);
      if (reply === FAULT) fallBack();
      else seen(Number(reply));
      local.refund();
    },
  };
}
