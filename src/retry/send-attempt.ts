import type { RequestFactory } from '../core/request.js';

/**
 * Sends one attempt of `fetchWithRetry`: the only place a request leaves
 * it, so a gate in front of every send (an origin's cooldown, a rate
 * limiter) belongs here.
 */
export function sendAttempt(fetchImpl: typeof fetch, request: RequestFactory, signal: AbortSignal): Promise<Response> {
  return fetchImpl(...request.args(null, signal));
}
