import { parseRetryAfter } from '../http/parse-retry-after.js';
import { checkNames, refuse } from '../options/check.js';
import type { PollFeature } from '../kit/index.js';

/** Options of {@link paceByData}. */
export interface PaceByDataOptions {
  /** Shortest wait after a 2xx or 304, ms: after a change. */
  min: number;
  /** Longest wait after a 2xx or 304, ms. */
  max: number;
  /**
   * Each unchanged answer (304, or a body equal to the last) multiplies the wait by this.
   * @default 2
   */
  factor?: number;
}

/** A body's JSON, to tell an unchanged answer; undefined (always "changed") when it has none. */
const snapshot = (data: unknown): string | undefined => {
  try {
    return JSON.stringify(data);
  } catch {
    return undefined;
  }
};

const finite = (value: unknown, atLeast: number): value is number => typeof value === 'number' && value >= atLeast && value < Infinity;

/**
 * A pace set by the data and the server, within `min`..`max`: each
 * unchanged answer (304, or a body equal to the last) multiplies the wait
 * after it by `factor`, a change returns it to `min`, and a Retry-After on
 * a 2xx (the long-running-operation convention) sets the next wait within
 * `min`..`max`, shorter as well as longer; unchanged answers grow from
 * there. `min` is also the poll's `interval`: the floor of every wait
 * after a failure, and the base of its backoff, as a fixed interval would
 * be. Waits after failures stay the retry decision's, and the core's
 * slowdown under throttling still holds.
 *
 * @example
 * poll('/api/jobs/42', { use: [paceByData({ min: 1000, max: 30_000 })], isDone });
 */
export function paceByData(options: PaceByDataOptions): PollFeature {
  const { min, max, factor = 2 } = (options ?? {}) as PaceByDataOptions;
  if (typeof __DEV__ === 'undefined' || __DEV__) {
    checkNames(options, ['min', 'max', 'factor']);
    if (!finite(min, 0) || min === 0) refuse('min', 'a finite number > 0');
    if (!finite(max, min)) refuse('max', 'a finite number >= `min`');
    if (!finite(factor, 1)) refuse('factor', 'a finite number >= 1');
  }
  return {
    run: (call, next) => next({ ...call, settings: { ...call.settings, interval: min } }),
    attach({ settings }) {
      let wait = min;
      let last: string | undefined;
      return {
        pace(_wait, { status, headers, data, at }) {
          const retryAfter = parseRetryAfter(headers.get('retry-after'), { now: at, max: settings.maxRetryAfter });
          const text = status === 304 ? last : snapshot(data);
          const unchanged = status === 304 || (text !== undefined && text === last);
          last = text;
          wait = retryAfter !== null ? Math.min(max, Math.max(min, retryAfter)) : unchanged ? Math.min(max, wait * factor) : min;
          return wait;
        },
      };
    },
  };
}
