import { freshFor, spread, type PollFeature } from '../kit/index.js';
import { checkNames, refuse } from '../options/check.js';

/** Options of {@link paceByCacheControl}. */
export interface PaceByCacheControlOptions {
  /**
   * Longest wait the freshness may impose, ms (and never past
   * `maxRetryAfter`): a `max-age=3600` set on a job's status by mistake
   * holds a poll a minute, not an hour.
   * @default 60000
   */
  max?: number;
}

/**
 * Waits after a 2xx or 304 at least as long as the answer stays fresh:
 * `Cache-Control: max-age` minus `Age` (see `freshFor`), spread up to 20 %
 * above like a Retry-After, capped by `max` and `maxRetryAfter`. An answer
 * that will not change before then is not asked for again before then.
 * Opt-in, not a default: many APIs send a `max-age` for caches, not for
 * pollers (GitHub's `max-age=60` on a workflow run's status), and one set
 * by mistake on a job's status would hold every poll of it. Waits after
 * failures stay the retry decision's.
 *
 * @example
 * poll('/api/feed', { use: [paceByCacheControl({ max: 30_000 })], isDone });
 */
export function paceByCacheControl(options?: PaceByCacheControlOptions): PollFeature {
  const max = options?.max ?? 60_000;
  if (typeof __DEV__ === 'undefined' || __DEV__) {
    if (options !== undefined && (typeof options !== 'object' || options === null)) refuse('options', 'an object');
    checkNames(options, ['max']);
    if (typeof max !== 'number' || !(max >= 0 && max < Infinity)) refuse('max', 'a finite number >= 0');
  }
  return {
    attach: ({ settings }) => ({
      pace(wait, { headers }) {
        const fresh = freshFor(headers);
        return fresh ? Math.max(wait, spread(fresh, settings.env.random(), Math.min(max, settings.maxRetryAfter))) : wait;
      },
    }),
  };
}
