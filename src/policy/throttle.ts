/**
 * Whether an answer says this poller asks too often, so that its pace
 * slows (see {@link nextSlowdown}): a 429, with or without a Retry-After.
 * A 503 does not, even with a Retry-After: it says the server is down,
 * whatever the client's pace. Its Retry-After is honoured by the retry
 * decision and the cooldown; slowing down on top of it only made clients
 * see the end of an outage late (bench:peers, 100 clients, 503 +
 * `Retry-After: 2` for 5 s, the job done 3 s after it: seen done at p95
 * 3.1 s, against 0.7-1.1 s for the peers; 0.9-1.0 s without the slowdown).
 */
export const slowsPace = (status: number): boolean => status === 429;

/**
 * How much a throttled poller slows down, as a pure rule (AIMD, how TCP and
 * the AWS SDK's adaptive retry mode find a link's capacity): each throttled
 * answer multiplies the slowdown by 2 to 4 (at `random`, so a throttled
 * fleet spreads out), from at least `interval`, up to four times the
 * interval. Each success takes 40 % off how far it is above the interval,
 * and once that is 40 % of the interval or less it is gone: from four
 * intervals the waits after the successes are 2.8, 2.08 and 1.648 intervals,
 * then the interval (the fourth success); from two, 1.6 intervals, then the
 * interval. A server that still throttles says so with its next 429, and the
 * first successes stay slow enough that the fleet's return draws few:
 * 100 clients polling at 1 s a server that serves 50 req/s (bench:peers'
 * rate-limit scenario) drew 86-98 429s in 10 s over thirteen runs (the old
 * rule, a sixteenth of the interval off per success, 48 successes from four
 * intervals back to one: 86-100 over eleven; halving the excess: 88-100
 * over sixteen). The wait after a success is never below the slowdown, nor is the
 * floor of the wait after a 429 (a server at capacity).
 */
export function nextSlowdown(slowdown: number, interval: number, throttled: boolean, random: number): number {
  if (throttled) return Math.min(4 * interval, Math.max(slowdown, interval) * 2 ** (1 + random));
  const next = (3 * slowdown + 2 * interval) / 5;
  return next > 1.4 * interval ? next : 0;
}
