import type { RetryCooldown } from '../cooperate/retry-cooldown.js';
import type { RequestFactory } from '../core/request.js';

/**
 * Sends one attempt of `fetchWithRetry`: the only place a request leaves
 * it, so a gate in front of every send (an origin's cooldown, a rate
 * limiter) belongs here.
 */
export function sendAttempt(
  fetchImpl: typeof fetch,
  request: RequestFactory,
  signal: AbortSignal | undefined,
  cooldown?: RetryCooldown,
): Promise<Response> {
  // Called detached: browsers and workerd refuse a fetch whose `this` is not the global.
  if (!cooldown) return fetchImpl(...request.args(null, signal));
  // The cooldown's wait comes before the attempt (the loop's `gate`); here it only learns from the answer.
  return fetchImpl(...request.args(null, signal)).then((response) => {
    cooldown.note(response, request.url);
    return response;
  });
}
