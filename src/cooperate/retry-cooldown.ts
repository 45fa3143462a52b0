import type { Environment } from '../env/environment.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { responseOf } from '../retry/error-outcome.js';
import { originCooldown, type OriginCooldown } from './origin-cooldown.js';

/** What `retry` and `fetchWithRetry` need to take part in the origin cooldown. */
export interface RetryCooldown {
  /** ms to wait for the cooldown of the origin (of `url`, or of the last answer seen); 0 when clear. Counts it as honoured. */
  delay(url?: string): number;
  /** Records an answer: a 429 or 503 with Retry-After cools its origin for every pollite request. */
  note(response: { status: number; headers: { get(name: string): string | null } }, url: string | undefined): void;
  /** Records a failure of `retry`'s `fn`: an error carrying a response and a URL (an `HttpError`) counts as that answer. */
  noteError(error: unknown): void;
}

/**
 * The origin cooldown for one `retry` or `fetchWithRetry` call.
 * `fetchWithRetry` knows its origin before sending; `retry` learns it from
 * the first error that carries a response (an `HttpError`'s `url`).
 */
export function retryCooldown(env: Environment, maxRetryAfter: number): RetryCooldown {
  let cooldown: OriginCooldown | undefined;
  const of = (url: string | undefined): OriginCooldown | undefined => {
    if (!cooldown && url && URL.canParse(url)) cooldown = originCooldown(url, maxRetryAfter);
    return cooldown;
  };
  const gate: RetryCooldown = {
    delay(url) {
      return of(url)?.delay(env.now(), env.random) ?? 0;
    },
    note(response, url) {
      const now = env.now();
      of(url)?.note(response.status, parseRetryAfter(response.headers.get('retry-after'), { now, max: maxRetryAfter }), now);
    },
    noteError(error) {
      const response = responseOf(error);
      if (!response) return;
      const own = (error as { url?: unknown }).url;
      const url = typeof own === 'string' ? own : response.url;
      if (typeof url === 'string') gate.note(response, url);
    },
  };
  return gate;
}
