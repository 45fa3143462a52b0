import { spread } from '../policy/spread.js';

/**
 * The realm's cooldowns: scope → epoch ms until which a server told some
 * pollite request to stay away. One per JavaScript realm, so one 503 quiets
 * the whole page's traffic to that origin.
 */
const quietUntil = new Map<string, number>();

/** Cooldowns on record above which a new one sweeps out those that have passed. */
const SWEEP_ABOVE = 256;

/**
 * What an answer's Retry-After speaks for: a 503 for the whole origin (the
 * server is down or overloaded, whatever the route), a 429 for its route
 * (origin and path: rate limiters are mounted per route, and a limit on
 * `/login` says nothing of `/jobs`); any other status for nothing.
 */
export const cooldownScope = (url: URL, status: number): string | undefined =>
  status === 503 ? url.origin : status === 429 ? url.origin + url.pathname : undefined;

/** One caller's view of the cooldowns that apply to the URL it talks to. */
export interface OriginCooldown {
  /** ms to wait before the next request, 0 when clear; counts that cooldown as honoured. Draws `random` only when it must wait. */
  delay(now: number, random: () => number): number;
  /** Records an answer: a 503 (origin) or 429 (route) with a Retry-After of `retryAfter` ms. */
  note(status: number, retryAfter: number | null, now: number): void;
}

/**
 * The cooldowns of `url` for one caller (`poll`, `retry`, `fetchWithRetry`),
 * whose waits are capped at `maxRetryAfter` (plus the spread, so the pollers
 * held back do not return in lockstep). A caller never waits twice for the
 * same cooldown, so its own Retry-After wait and the cooldown it set are one
 * wait, not two.
 */
export function originCooldown(url: string, maxRetryAfter = Infinity): OriginCooldown {
  const target = new URL(url);
  const scopes = [cooldownScope(target, 503)!, cooldownScope(target, 429)!];
  let honoured = 0;
  return {
    delay(now, random) {
      let until = 0;
      for (const scope of scopes) {
        const t = quietUntil.get(scope) ?? 0;
        // A cooldown that has passed is forgotten, so a process that talks to many origins keeps only those cooling now.
        if (t && t <= now) quietUntil.delete(scope);
        until = Math.max(until, t);
      }
      if (until <= now || until <= honoured) return 0;
      honoured = until;
      return spread(until - now, random(), maxRetryAfter);
    },
    note(status, retryAfter, now) {
      const scope = cooldownScope(target, status);
      if (!scope || !retryAfter || target.origin === 'null') return;
      const until = now + retryAfter;
      honoured = Math.max(honoured, until);
      if (until > (quietUntil.get(scope) ?? 0)) quietUntil.set(scope, until);
      // Scopes nobody asks about again are swept here, rarely enough to cost nothing.
      if (quietUntil.size > SWEEP_ABOVE) for (const [key, t] of quietUntil) if (t <= now) quietUntil.delete(key);
    },
  };
}

/** How many scopes have a cooldown on record (for tests: passed ones are forgotten on the next look). */
export const recordedCooldowns = (): number => quietUntil.size;

/** Forgets every cooldown of this realm (tests, or a page that knows the outage is over). */
export const clearCooldowns = (): void => quietUntil.clear();
