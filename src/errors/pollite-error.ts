/**
 * Base class of every error pollite creates on purpose. Each subclass sets
 * its `name` as a literal: minifiers rename classes, and the realm-safe
 * guards (`isHttpError`...) and `isRetryableError` rely on the name.
 */
export class PolliteError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PolliteError';
  }
}

/**
 * Realm-safe type guard: true when `error` is an error named `name`, even if
 * it comes from another copy of pollite (a second bundle, an iframe).
 */
export const hasErrorName = (error: unknown, name: string): boolean =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name;
