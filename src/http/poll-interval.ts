import { decimal } from './rate-limit-field.js';

/**
 * Reads GitHub's `X-Poll-Interval` (on a 200 or 304 of the events and
 * notifications APIs: "In times of high server load, the time may
 * increase. Please obey the header."): the seconds to wait before the next
 * poll, in ms. A non-negative decimal; anything else is `null`; a figure
 * past 2^1024 is `Infinity`, capped by the caller.
 *
 * @example
 * parsePollInterval('60'); // 60000
 */
export const parsePollInterval = (value: string | null | undefined): number | null => {
  const seconds = decimal(value);
  return seconds === null ? null : seconds * 1000;
};
