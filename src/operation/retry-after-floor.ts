import { parseRetryAfter } from '../http/parse-retry-after.js';
import type { PollFeature } from '../poll/feature.js';

/**
 * The operation's pace as a poll feature: the first poll waits `first` ms
 * (the start answer's Retry-After, else the interval), and a Retry-After on
 * a 2xx or 304 of the monitor is the floor of the wait after it.
 *
 * The core reads a Retry-After only on failures; until it takes a 2xx's as
 * a floor too, this feature does. Internal to `pollOperation`.
 */
export function retryAfterFloor(first: number): PollFeature {
  return {
    attach({ settings }) {
      const { env, maxRetryAfter } = settings;
      let waited = !(first > 0);
      return {
        hold() {
          if (waited) return undefined;
          waited = true;
          return { event: { type: 'wait', delay: first, at: env.now() + first }, ms: first };
        },
        pace(wait, { headers, at }) {
          const asked = parseRetryAfter(headers.get('retry-after'), { now: at, max: maxRetryAfter });
          return asked === null ? wait : Math.max(wait, asked);
        },
      };
    },
  };
}
