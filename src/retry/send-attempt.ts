import type { RetryCooldown } from '../cooperate/retry-cooldown.js';
import type { RequestFactory } from '../core/request.js';

/**
 * Sends one attempt of `fetchWithRetry`: the only place a request leaves
 * it, so a gate in front of every send (an origin's cooldown, a rate
 * limiter) belongs here.
 */
export function sendAttempt(fetchImpl: typeof fetch, request: RequestFactory, signal: AbortSignal, cooldown?: RetryCooldown): Promise<Response> {
  if (!cooldown) return fetchImpl(...request.args(null, signal));
  const send = async (): Promise<Response> => {
    const response = await fetchImpl(...request.args(null, signal));
    cooldown.note(response, request.url);
    return response;
  };
  const waiting = cooldown.wait(signal, request.url);
  return waiting ? waiting.then(send) : send();
}
