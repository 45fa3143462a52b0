import type { WaitSource } from '../http/server-wait.js';
import type { PollFeature } from '../poll/feature.js';

/**
 * The operation's first poll, as a poll feature: it waits `ms` (the start
 * answer's own wait, else the interval) before the monitor's first request.
 * Every later wait is the engine's: a monitor answer's Retry-After is a
 * floor there, as on any 2xx. `source`: the start answer's signal that
 * asked for it, told in the `wait` event. Internal to `pollOperation`.
 */
export function firstWait(ms: number, source?: WaitSource): PollFeature {
  return {
    attach({ settings }) {
      let waited = !(ms > 0);
      return {
        hold() {
          if (waited) return undefined;
          waited = true;
          return { event: { type: 'wait', delay: ms, at: settings.env.now() + ms, ...(source && { source }) }, ms };
        },
      };
    },
  };
}
