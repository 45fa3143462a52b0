import { checkNames } from '../options/check.js';
import type { ShareKeyOption } from '../kit/index.js';
import type { RetryBudgetOptions } from '../index.js';
import type { ClusterRedis } from './redis-adapter.js';

/**
 * What {@link ClusterOptions.onStatus} hears: Redis became unreachable and
 * each process works on its own (`local`), Redis answers again and the
 * processes cooperate (`connected`), or a body was not published to the
 * other processes (`unpublished`: larger than `maxBytes`, or `select` or
 * JSON failed on it).
 */
export type ClusterStatus =
  /** Redis is unreachable: each process works on its own until it answers again. */
  | {
      /** The status's name. */
      type: 'local';
      /** Why Redis could not be used. */
      error: unknown;
    }
  /** Redis answers again: the processes cooperate. */
  | {
      /** The status's name. */
      type: 'connected';
    }
  /** A body was not published to the other processes. */
  | {
      /** The status's name. */
      type: 'unpublished';
      /** Larger than `maxBytes` (`too-large`), or `select` or JSON failed on it (`error`). */
      reason: 'too-large' | 'error';
      /** The body's size in bytes, when it was too large. */
      bytes?: number;
      /** What failed, when `select` or JSON did. */
      error?: unknown;
    };

/** Options of {@link createCluster}. Validated when it is called. */
export interface ClusterOptions {
  /**
   * Your Redis client, connected by you: a node-redis client (v4, v5), an
   * ioredis client (v5), or a {@link ClusterRedis} adapter. pollite opens
   * one more connection from it (a duplicate) for pub/sub.
   */
  redis: ClusterRedis | object;
  /**
   * Prefixes every key and channel pollite uses, so that several apps (or
   * test runs) share one Redis.
   * @default 'pollite:'
   */
  prefix?: string;
  /**
   * Longest wait for any Redis operation, ms; past it the process goes on
   * alone (as if it had no cluster) until Redis answers again.
   * @default 250
   */
  deadline?: number;
  /**
   * How long a poller's leadership of a job lasts unless renewed, ms (it
   * is renewed every third of it). A leader that dies is replaced within
   * about this long; followers check for it every third of it.
   * @default 3000
   */
  lease?: number;
  /**
   * After Redis failed, how long the process goes on alone before trying
   * Redis again, ms.
   * @default 1000
   */
  recheck?: number;
  /** Told when Redis becomes unreachable or answers again, and when a body is not published. */
  onStatus?: (status: ClusterStatus) => void;
}

/** Options of {@link Cluster.share}. Give every process the same ones. */
export interface ClusterShareOptions {
  /**
   * Whether the leader publishes each body to the other processes (and keeps
   * the latest in Redis for those that join). `false`: the other processes
   * only stand by to take over; their callers get no bodies (one poller per
   * job whose leader acts on each body itself).
   * @default true
   */
  publish?: boolean;
  /**
   * What of each body is published (and what the other processes' callers
   * get): a smaller part, or one without secrets. Its JSON is published.
   * @default the whole body
   * @example select: (job) => ({ id: job.id, status: job.status })
   */
  select?: (body: unknown) => unknown;
  /**
   * Largest published JSON, bytes; a larger body stays in the leader's
   * process (`onStatus` says `unpublished`).
   * @default 1048576
   */
  maxBytes?: number;
  /**
   * Says that polls of one request (method, URL, headers, body, and what
   * of `init` fetch reads) under this key are one job in every process,
   * whatever their `fetch`, `parse`, objects in `init` (Node's `dispatcher`)
   * and features after this one that run the loop: that those send the
   * same request as the same user and read the answer alike. Those cannot
   * be compared across processes, so without a key a poll with any of them
   * of its own is shared only within its process (by identity, as
   * `share()`), and its callers hear a `share` event with the role `local`
   * and the reason. A function is called with each call and gives that
   * call's key. Hashed into the job's name with the rest, never stored.
   * @default none: a poll with its own `fetch` and the rest is not shared across processes
   * @example cluster.share({ key: (call) => `tenant ${tenantOf(call.request.url)}` })
   */
  key?: ShareKeyOption;
  /**
   * How old a body kept from a loop that has ended may be and still answer
   * a poll that starts after that loop ended, ms since its leader polled it
   * (by Redis's clock). Without it such a poll never gets that body: it
   * asks the server (or the loop another process leads now). A poll that
   * joins a loop still running gets its latest body at once, whatever its
   * age; a follower gets its loop's last body, however the loop ended.
   * @default none: a body of a loop that ended answers no later poll
   * @example cluster.share({ maxAge: 5_000 }) // a result polled in the last 5 s will do
   */
  maxAge?: number;
}

/** Options of {@link Cluster.budget}: those of `createRetryBudget`, and a name. */
export interface ClusterBudgetOptions extends RetryBudgetOptions {
  /**
   * Names the bucket: every process's `budget({ name })` draws from the same one.
   * @default 'default'
   */
  name?: string;
}

/** Options of {@link Cluster.fetch}. */
export interface ClusterFetchOptions {
  /**
   * Longest wait a cooldown may impose, ms (before the spread): use the
   * `maxRetryAfter` of the calls this fetch serves.
   * @default 300000
   */
  maxRetryAfter?: number;
  /**
   * The fetch to wrap.
   * @default globalThis.fetch, looked up on each call
   */
  fetch?: typeof fetch;
}

/** The defaults of every option, in one place. */
export const CLUSTER_DEFAULTS = Object.freeze({
  // keys
  prefix: 'pollite:',
  // faults
  deadline: 250,
  recheck: 1000,
  // election
  lease: 3000,
  // publishing
  publish: true,
  maxBytes: 1_048_576,
  // cooldown
  maxRetryAfter: 300_000,
  budgetName: 'default',
});

/** A TypeError naming the bad option, in the core's words. */
export const refuse = (name: string, expected: string): never => {
  throw new TypeError(`Expected \`${name}\` to be ${expected}`);
};

/** The names each options object of a cluster may hold. */
export const CLUSTER_OPTION_NAMES: {
  readonly cluster: ReadonlyArray<keyof ClusterOptions>;
  readonly share: ReadonlyArray<keyof ClusterShareOptions>;
  readonly budget: ReadonlyArray<keyof ClusterBudgetOptions>;
  readonly fetch: ReadonlyArray<keyof ClusterFetchOptions>;
} = {
  cluster: ['redis', 'prefix', 'deadline', 'lease', 'recheck', 'onStatus'],
  share: ['publish', 'select', 'maxBytes', 'key', 'maxAge'],
  budget: ['name', 'capacity', 'retryCost', 'timeoutCost', 'successRefund'],
  fetch: ['maxRetryAfter', 'fetch'],
};

/**
 * Refuses options that are not an object, and, in development, a name that
 * `names` does not hold (``Unknown option `leese`: did you mean `lease`?``).
 */
export function checkObject(options: unknown, names: readonly string[]): asserts options is object {
  if (typeof options !== 'object' || options === null) refuse('options', 'an object');
  if (typeof __DEV__ === 'undefined' || __DEV__) checkNames(options as object, names);
}

/** `value`, checked to be a finite number >= `min` (or undefined: the default). */
export function positive(name: string, value: unknown, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= min && value < Infinity)) refuse(name, `a finite number >= ${min}`);
  return value as number;
}
