import { errorOutcome } from '../policy/error-outcome.js';
import type { Failed } from './attempt-spec.js';

const NO_HEADERS = new Headers();

/**
 * What a thrown error is to the loop: a timeout (`timedOut`, or a
 * timeout's name or code), an answer when the error carries a response (an
 * `HttpError`: its Retry-After is heard), else a network failure.
 */
export function thrownFailure(error: unknown, timedOut: boolean): Failed<never> {
  const failure = errorOutcome(error, timedOut);
  return failure.type === 'status'
    ? { failure, error, timedOut, status: failure.status, headers: failure.headers }
    : { failure, error, timedOut, status: 0, headers: NO_HEADERS };
}
