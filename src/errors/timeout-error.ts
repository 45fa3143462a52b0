/**
 * The platform's own timeout error: a `DOMException` named `TimeoutError`,
 * as `AbortSignal.timeout()` produces, with `cause` set to the last failure.
 */
export function timeoutError(message: string, cause?: unknown): DOMException {
  const error = new DOMException(message, 'TimeoutError');
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true });
  return error;
}

/** True for a `TimeoutError`, whichever realm or runtime made it. */
export const isTimeoutError = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'TimeoutError';
