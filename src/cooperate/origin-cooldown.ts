import { RETRY_AFTER_SPREAD } from '../core/retry-decision.js';

/**
 * The realm's origin cooldowns: origin → epoch ms until which a server told
 * some pollite request (429 or 503 with Retry-After) to stay away. One per
 * JavaScript realm, so one 503 quiets the whole page's traffic to that origin.
 */
const quietUntil = new Map<string, number>();

/** Cooldowns on record above which a new one sweeps out those that have passed. */
const SWEEP_ABOVE = 256;

/** Statuses whose Retry-After speaks for the whole origin. */
const COOLS_ORIGIN = (status: number): boolean => status === 429 || status === 503;

/**
 * How long a request must wait for the origin's cooldown, as a pure
 * function: nothing once `until` has passed or when this caller already
 * honoured that same cooldown (it set it, or waited for it); otherwise the
 * time left, capped at this caller's own `max` (its `maxRetryAfter`: another
 * caller's answer must not hold it longer than its own would), plus a
 * spread of up to {@link RETRY_AFTER_SPREAD} of it, so the pollers it held
 * back do not return in lockstep.
 */
export const cooldownDelay = (until: number, honoured: number, now: number, random: number, max = Infinity): number => {
  if (until <= now || until <= honoured) return 0;
  const left = Math.min(until - now, max);
  return left + left * RETRY_AFTER_SPREAD * random;
};

/** One caller's view of the cooldown of the origin it talks to. */
export interface OriginCooldown {
  /** ms to wait before the next request, 0 when clear; counts that cooldown as honoured. Draws `random` only when it must wait. */
  delay(now: number, random: () => number): number;
  /** Records an answer: a 429 or 503 with a Retry-After of `retryAfter` ms cools the whole origin. */
  note(status: number, retryAfter: number | null, now: number): void;
}

/**
 * The cooldown of `url`'s origin for one caller (`poll`, `retry`,
 * `fetchWithRetry`), whose waits are capped at `maxRetryAfter` (plus the
 * spread). A caller never waits twice for the same cooldown, so its own
 * Retry-After wait and the cooldown it set are one wait, not two.
 */
export function originCooldown(url: string, maxRetryAfter = Infinity): OriginCooldown {
  const origin = new URL(url).origin;
  let honoured = 0;
  return {
    delay(now, random) {
      const until = quietUntil.get(origin) ?? 0;
      // A cooldown that has passed is forgotten, so a process that talks to many origins keeps only those cooling now.
      if (until > 0 && until <= now) quietUntil.delete(origin);
      if (until <= now || until <= honoured) return 0;
      honoured = until;
      return cooldownDelay(until, 0, now, random(), maxRetryAfter);
    },
    note(status, retryAfter, now) {
      if (!COOLS_ORIGIN(status) || !retryAfter || origin === 'null') return;
      const until = now + retryAfter;
      honoured = Math.max(honoured, until);
      if (until > (quietUntil.get(origin) ?? 0)) quietUntil.set(origin, until);
      // Origins nobody asks about again are swept here, rarely enough to cost nothing.
      if (quietUntil.size > SWEEP_ABOVE) for (const [o, t] of quietUntil) if (t <= now) quietUntil.delete(o);
    },
  };
}

/** How many origins have a cooldown on record (for tests: passed ones are forgotten on the next look). */
export const recordedCooldowns = (): number => quietUntil.size;

/** Forgets every cooldown of this realm (tests, or a page that knows the outage is over). */
export const clearCooldowns = (): void => quietUntil.clear();
