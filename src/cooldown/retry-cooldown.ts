import type { Clock } from '../env/clock.js';
import { serverWait } from '../http/server-wait.js';
import { responseOf } from '../policy/error-outcome.js';
import type { HeaderReader } from '../http/parse-retry-after.js';
import { originCooldown, type OriginCooldown } from './origin-cooldown.js';

/** What `retry` and `fetchWithRetry` need to take part in the cooldown. */
export interface RetryCooldown {
  /** ms to wait for the cooldown of the URL (`url`, or the last answer's); 0 when clear. Counts it as honoured. */
  delay(url?: string): number;
  /** Records an answer: a 503 (origin) or 429 (route) with Retry-After cools it for every pollite request. */
  note(response: { status: number; headers: HeaderReader }, url: string | undefined): void;
  /** Records a failure of `retry`'s `fn`: an error carrying a response and a URL (an `HttpError`) counts as that answer. */
  noteError(error: unknown): void;
}

/**
 * The cooldown for one `retry` or `fetchWithRetry` call. `fetchWithRetry`
 * knows its URL before sending; `retry` learns it from the first error that
 * carries a response (an `HttpError`'s `url`).
 */
export function retryCooldown(env: Clock, maxRetryAfter: number): RetryCooldown {
  let cooldown: OriginCooldown | undefined;
  const of = (url: string | undefined): OriginCooldown | undefined => {
    if (!cooldown && url && URL.canParse(url)) cooldown = originCooldown(url, maxRetryAfter);
    return cooldown;
  };
  const gate: RetryCooldown = {
    delay: (url) => of(url)?.delay(env.now(), env.random) ?? 0,
    note(response, url) {
      const now = env.now();
      of(url)?.note(response.status, Math.min(serverWait(response.status, response.headers, now) ?? 0, maxRetryAfter), now);
    },
    noteError(error) {
      const response = responseOf(error);
      const own = (error as { url?: unknown } | null)?.url;
      const url = typeof own === 'string' ? own : response?.url;
      if (response && typeof url === 'string') gate.note(response, url);
    },
  };
  return gate;
}
