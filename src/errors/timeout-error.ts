/**
 * The platform's own timeout error: a `DOMException` named `TimeoutError`,
 * as `AbortSignal.timeout()` produces, with `cause` set to the last failure.
 */
export function timeoutError(message: string, cause?: unknown): DOMException {
  const error = new DOMException(message, 'TimeoutError');
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
  return error;
}

/** An `Error` named `TimeoutError`: what {@link isTimeoutError} narrows to. */
export interface TimeoutErrorLike extends Error {
  /** Always `'TimeoutError'`. */
  name: 'TimeoutError';
}

/**
 * True for a `TimeoutError`, whichever realm or runtime made it: pollite's
 * and `AbortSignal.timeout()`'s `DOMException`, or another library's error
 * of that name (ky's, got's). It checks the name, as the other guards do,
 * so it narrows to what every one of them has: an `Error` named
 * `TimeoutError` (a `cause`, for pollite's, is the last failure).
 *
 * @example
 * catch (error) {
 *   if (isTimeoutError(error)) console.warn(error.message, error.cause);
 * }
 */
export const isTimeoutError = (error: unknown): error is TimeoutErrorLike =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
