/**
 * The spec's timing rules, written out for the model-based tests (issue 34):
 * the spread of a server's wait under a hard cap, and how the total deadline
 * fits the next wait. They restate the spec, not pollite's code, so that a
 * change to either shows up as a broken property.
 */

/** How far above the server's wait a client may land. */
export const SPREAD = 0.2;

/**
 * The wait for a server that asked for `ms`, at `random`, never above `max`
 * (a hard cap, in whole ms: rounded down), in whole ms rounded up: over
 * [ms, 1.2 ms] cut at the cap when `ms` is at most the cap; over
 * [cap / 1.2, cap] when the cap cuts the server's wait short.
 */
export function spreadWait(ms: number, random: number, max = Infinity): number {
  const cap = Math.floor(max);
  const low = ms <= cap ? ms : cap / (1 + SPREAD);
  const high = Math.min(cap, ms * (1 + SPREAD));
  return Math.min(cap, Math.ceil(low + (high - low) * random));
}

/** What the deadline leaves of a wait: `wait` ms, then a try (`last`: the last one before the deadline), or nothing more. */
export type Fitted = { wait: number; last: boolean } | { wait: 'deadline' };

/**
 * The deadline met, not guessed: a wait `delay` that ends by the deadline is
 * kept; one that would cross it is shortened so that one last try starts
 * `max(1, lastTry)` ms before the deadline (the caller passes twice the last try's duration, at most a tenth of the
 * timeout, as the loop does), never below the server's `floor`;
 * after such a last try, or when even the floor leaves no room, nothing more
 * is sent and the call waits for the deadline (which rejects when due).
 */
export function fitWait(delay: number, floor: number, lastTry: number, now: number, deadline: number, lastMade: boolean): Fitted {
  if (now + delay <= deadline) return { wait: delay, last: false };
  if (lastMade) return { wait: 'deadline' };
  const wait = Math.max(floor, Math.floor(deadline - now - Math.max(1, lastTry)), 0);
  return now + wait < deadline ? { wait, last: true } : { wait: 'deadline' };
}

/** The exact message of the total deadline's TimeoutError. */
export const timedOutMessage = (what: 'Polling' | 'Retrying', timeout: number): string => `${what} timed out after ${timeout} ms`;
