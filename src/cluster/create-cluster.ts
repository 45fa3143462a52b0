import type { RetryBudget } from '../index.js';
import { createSharedLoops, type PollFeature } from '../kit/index.js';
import { clusterBudget } from './cluster-budget.js';
import { cooldownFeature } from './cluster-cooldown.js';
import { cooldownFetch } from './cluster-fetch.js';
import { CLUSTER_DEFAULTS, CLUSTER_OPTION_NAMES, checkObject, positive, refuse, type ClusterBudgetOptions, type ClusterFetchOptions, type ClusterOptions, type ClusterShareOptions, type ClusterStatus } from './cluster-options.js';
import { CooldownBoard } from './cooldown-board.js';
import { randomId } from './keys.js';
import { redisAdapter } from './redis-adapter.js';
import { shareFeature, type ShareContext } from './cluster-share.js';
import { clusterStore } from './store.js';
import { clusterInternals } from './cluster-internals.js';

/** pollite's cluster tier: made by {@link createCluster}, one per process and Redis. */
export interface Cluster {
  /**
   * One poller per job for every process: a poll feature. Polls of the
   * same request (method, URL, headers, body, what of `init` fetch reads)
   * in any process elect one leader through a lease in Redis; it polls,
   * and publishes each body to the others, which send nothing. When it
   * stops or dies, another takes over, keeping its pending wait (interval,
   * Retry-After, backoff), up to its own `maxRetryAfter`. `share` events
   * say `leader` or `follower`. A poll with a `fetch`, `parse`, `init`
   * object or later feature of its own is one job across processes only
   * under a `key` ({@link ClusterShareOptions.key}); without one it is
   * shared within its process (`share` event: `local`).
   *
   * @example
   * poll(`${api}/jobs/42`, { use: [cluster.share(), cluster.cooldown()], isDone, onUpdate });
   */
  share(options?: ClusterShareOptions): PollFeature;
  /**
   * The cluster cooldown, as a poll feature: a 503 (origin) or 429 (route)
   * with Retry-After, or a rate-limit reset, that any process meets holds
   * back every process's polls of that origin or route until then (each
   * capped by its own `maxRetryAfter`, plus the spread). `cooldown` events
   * say so.
   */
  cooldown(): PollFeature;
  /**
   * A retry budget shared by every process (a token bucket in Redis), for
   * `retry: { budget }` of `retry` and `fetchWithRetry`: the semantics and
   * options of `createRetryBudget`, and a `name`.
   *
   * @example
   * const budget = cluster.budget();
   * await fetchWithRetry(url, { retry: { budget, fetch: cluster.fetch() } });
   */
  budget(options?: ClusterBudgetOptions): RetryBudget;
  /**
   * A `fetch` that takes part in the cluster cooldown, for
   * `fetchWithRetry`'s `retry.fetch` and for `retry`'s function: it waits
   * out the cooldowns other processes announced before sending, and
   * announces those its answers ask for. Make one per call.
   */
  fetch(options?: ClusterFetchOptions): typeof fetch;
  /** Whether Redis answered the last operation: false while each process works alone. */
  readonly connected: boolean;
  /** Closes the connection pollite opened (the subscriber); your client stays open. Polls still running go on alone. */
  close(): Promise<void>;
}

/**
 * Makes pollite polite across processes and machines, through your Redis:
 * one cooldown, one retry budget and one poller per job for all. Redis
 * never makes a process worse off than a lone one: every operation has a
 * `deadline`, and while Redis fails each process works alone (`onStatus`
 * says `local`), cooperating again when Redis is back.
 *
 * @example
 * import { createClient } from 'redis';
 * import { poll, fetchWithRetry } from 'pollite';
 * import { createCluster } from 'pollite/cluster';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).on('error', console.error).connect();
 * const cluster = createCluster({ redis, prefix: 'myapp:pollite:' });
 * await poll(`${api}/jobs/42`, { use: [cluster.share(), cluster.cooldown()], isDone });
 * await fetchWithRetry(`${api}/orders`, { retry: { budget: cluster.budget(), fetch: cluster.fetch() } });
 */
export function createCluster(options: ClusterOptions): Cluster {
  checkObject(options, CLUSTER_OPTION_NAMES.cluster);
  const redis = redisAdapter(options.redis);
  const { prefix = CLUSTER_DEFAULTS.prefix, onStatus } = options;
  if (typeof prefix !== 'string') refuse('prefix', 'a string');
  if (onStatus !== undefined && typeof onStatus !== 'function') refuse('onStatus', 'a function');
  const deadline = positive('deadline', options.deadline, 1, CLUSTER_DEFAULTS.deadline);
  const lease = positive('lease', options.lease, 3 * deadline, CLUSTER_DEFAULTS.lease);
  const recheck = positive('recheck', options.recheck, 0, CLUSTER_DEFAULTS.recheck);
  const report = (status: ClusterStatus): void => {
    try {
      onStatus?.(status);
    } catch {
      // A throwing onStatus is the caller's bug; it must not break polling.
    }
  };
  const store = clusterStore(redis, { deadline, recheck, onStatus: report });
  const board = new CooldownBoard(store, prefix);
  /** This process's name in Redis (a random id): what makes it one of the live processes a budget counts. */
  const id = randomId();
  const shares: ShareContext = { store, prefix, lease, report, loops: createSharedLoops(), jobs: new WeakMap() };
  const cluster: Cluster = {
    share: (shareOptions) => shareFeature(shares, shareOptions),
    cooldown: () => cooldownFeature(board),
    budget: (budgetOptions) => clusterBudget(store, prefix, id, budgetOptions),
    fetch: (fetchOptions) => cooldownFetch(board, fetchOptions),
    get connected() {
      return store.connected;
    },
    close: () => store.close(),
  };
  clusterInternals.set(cluster, { redis, prefix });
  return cluster;
}
