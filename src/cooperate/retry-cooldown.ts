import type { Environment } from '../env/environment.js';
import { sleepIn } from '../env/sleep.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { responseOf } from '../retry/error-outcome.js';
import { originCooldown, type OriginCooldown } from './origin-cooldown.js';

/** What `retry` and `fetchWithRetry` need to take part in the origin cooldown. */
export interface RetryCooldown {
  /** Waits out the cooldown of the origin (of `url`, or of the last answer seen); undefined when clear. */
  wait(signal: AbortSignal | undefined, url?: string): Promise<void> | undefined;
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
    if (!cooldown && url && URL.canParse(url)) cooldown = originCooldown(url);
    return cooldown;
  };
  const gate: RetryCooldown = {
    wait(signal, url) {
      const delay = of(url)?.delay(env.now(), env.random) ?? 0;
      return delay > 0 ? sleepIn(env, delay, signal) : undefined;
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
