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

/**
 * Sets `value` as an own property that is readable but not enumerable, so
 * `console.log(error)`, `JSON.stringify` and log serializers that walk an
 * error's own properties leave it out: how an error keeps a URL (and the
 * response that repeats it) with its secrets for the code that catches it.
 */
export const defineHidden = (error: Error, name: string, value: unknown): void => {
  Object.defineProperty(error, name, { value, configurable: true, writable: true });
};
