/** What the deadline makes of the next wait. */
export type DeadlineFit =
  /** Wait `ms`, then try: the wait ends before the deadline (perhaps shortened to, as the last try). */
  | {
      /** ms to wait before the next try. */
      wait: number;
      /** Whether that try is the last before the deadline (the wait was shortened for it). */
      last: boolean;
    }
  /** No try fits before the deadline: wait for it (it rejects with a `TimeoutError` when it passes). */
  | {
      /** Send nothing more: wait for the deadline. */
      wait: 'deadline';
    };

/**
 * The one deadline rule of pollite, as a pure function: a deadline is met,
 * not guessed. Given the wait chosen before the next try (`delay`), the
 * part of it the server asked for (`floor`: a Retry-After, a rate-limit
 * reset, a cooldown; 0 when the client chose it all), how long the last
 * try took (`lastTry`; the loop passes at most a tenth of the whole timeout), the time and the deadline (epoch ms):
 *
 * - a wait that ends by the deadline is kept (one ending at it lets the
 *   deadline fire first: nothing is sent past it);
 * - one that would cross it is shortened so the next try starts early
 *   enough to be answered before the deadline (as long before it as the
 *   last try took, at least 1 ms), and
 *   that try is the last (`last`);
 * - but never below the server's `floor`, and never twice: when even the
 *   floor, or a last try already made, leaves no room, nothing more is
 *   sent, and the caller waits for the deadline itself, which rejects with
 *   its `TimeoutError` when it is due: never before.
 *
 * So `timeout: 12000` tries until about 12 s, however the backoff falls.
 */
export function fitDeadline(delay: number, floor: number, lastTry: number, now: number, deadline: number, lastMade: boolean): DeadlineFit {
  if (now + delay <= deadline) return { wait: delay, last: false };
  if (lastMade) return { wait: 'deadline' };
  const latest = Math.floor(deadline - now - Math.max(1, lastTry));
  const wait = Math.max(floor, latest, 0);
  return now + wait < deadline ? { wait, last: true } : { wait: 'deadline' };
}
