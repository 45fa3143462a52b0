import type { HeaderReader } from '../http/parse-retry-after.js';
import type { Failure } from './retry-decision.js';
import { isTimeoutFailure, isUnreachable } from './is-retryable-error.js';

/** The parts of a response that an error may carry (pollite's `HttpError`, ky's `HTTPError`, ...). */
export interface CarriedResponse {
  status: number;
  headers: HeaderReader;
  url?: unknown;
}

/** Whether `value` looks like a response: a numeric status and headers that can be read. */
export const isResponseLike = (value: unknown): value is CarriedResponse =>
  typeof (value as CarriedResponse | null)?.status === 'number' && typeof (value as CarriedResponse).headers?.get === 'function';

/** The response `error` carries on its `response` property, when it looks like one. */
export function responseOf(error: unknown): CarriedResponse | undefined {
  const response = (error as { response?: unknown } | null)?.response;
  return isResponseLike(response) ? response : undefined;
}

/**
 * What a thrown error says about the attempt, for `retryDecision`: a
 * timeout (`timedOut`, a `TimeoutError` or an ETIMEDOUT-style code), a
 * status with its headers when the error carries a response (so `retry`
 * and the TanStack adapter honour Retry-After too), else a network failure
 * (`unreachable` when the request never reached a server).
 */
export function errorOutcome(error: unknown, timedOut = false): Failure {
  if (timedOut || isTimeoutFailure(error)) return { type: 'timeout', error };
  const response = responseOf(error);
  if (response) return { type: 'status', status: response.status, headers: response.headers };
  return isUnreachable(error) ? { type: 'network', error, unreachable: true } : { type: 'network', error };
}
