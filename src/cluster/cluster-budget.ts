import { createRetryBudget, type RetryBudget } from '../index.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, refuse, type ClusterBudgetOptions } from './cluster-options.js';
import { budgetKey, budgetLiveKey } from './keys.js';
import { REFUND, WITHDRAW } from './scripts.js';
import { FAULT, type ClusterStore } from './store.js';

/** A process that used a budget within this long (ms, Redis's clock) counts as live: one of those a fault's remainder is shared among. */
export const LIVE_WINDOW = 60_000;

/**
 * A {@link RetryBudget} that every process shares: one token bucket in
 * Redis, withdrawn from and refunded atomically (a Lua script), with the
 * semantics of `createRetryBudget` (capacity 500, retry 5, timeout 10,
 * refund 1 by default).
 *
 * Alongside it the process keeps a bucket of its own, charged with what it
 * withdrew and refunded. When Redis fails it retries from that one, cut
 * down to its share of what the shared bucket had left when last seen:
 * that, divided by the processes that used the bucket in the last minute
 * (each operation counts them). So the fleet spends no more than what was
 * left while Redis is away (plus what successes refund meanwhile, as a
 * lone process earns them), and no process more than it would alone.
 * Back from the fault, its first operation tells a bucket Redis no longer
 * has (restarted, flushed) what it has left of its share, rather than
 * starting full.
 */
export function clusterBudget(store: ClusterStore, prefix: string, id: string, options: ClusterBudgetOptions = {}): RetryBudget {
  checkObject(options, CLUSTER_OPTION_NAMES.budget);
  const { name = CLUSTER_DEFAULTS.budgetName, ...bucket } = options;
  if (typeof name !== 'string' || name === '') refuse('name', 'a non-empty string');
  // Validates the options as createRetryBudget does, and is the bucket this process falls back on.
  const local = createRetryBudget(bucket);
  const keys = [budgetKey(prefix, name), budgetLiveKey(prefix, name)];
  const { capacity, retryCost, timeoutCost, successRefund } = local;
  /** The shared bucket's tokens, and the processes using it, as last seen. */
  let shared = capacity;
  let live = 1;
  let alone = false;
  const fallBack = (): void => {
    if (alone) return;
    alone = true;
    const excess = local.available - Math.min(local.available, shared / live);
    if (excess > 0) local.withdraw(excess);
  };
  /** Reads a reply { tokens (or -1 - tokens), live }: the tokens, negative when refused. */
  const seen = (reply: unknown): number => {
    alone = false;
    const [tokens, processes] = (reply as unknown[]).map(Number) as [number, number];
    shared = tokens < 0 ? -1 - tokens : tokens;
    live = Math.max(1, processes);
    return tokens;
  };
  /**
   * What to assume of a bucket Redis does not have: full, unless this
   * process comes back from a fault knowing better: then what is left of
   * its share, the least the fleet can have left (the others' shares may
   * be spent), so that a restarted Redis never hands out more than the
   * budget had.
   */
  const seed = (): number => (alone ? local.available : capacity);
  const args = (cost: number): Array<string | number> => [capacity, cost, seed(), id, LIVE_WINDOW];
  return {
    capacity,
    retryCost,
    timeoutCost,
    successRefund,
    async withdraw(cost) {
      if (!(cost >= 0)) return false;
      const reply = await store.run(WITHDRAW, keys, args(cost));
      if (reply === FAULT || !Array.isArray(reply)) {
        fallBack();
        return local.withdraw(cost);
      }
      if (seen(reply) < 0) return false;
      local.withdraw(cost);
      return true;
    },
    async refund() {
      const reply = await store.run(REFUND, keys, args(successRefund));
      if (reply === FAULT || !Array.isArray(reply)) fallBack();
      else seen(reply);
      local.refund();
    },
  };
}
