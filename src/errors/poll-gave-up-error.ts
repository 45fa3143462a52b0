import { hasErrorName, PolliteError } from './pollite-error.js';

/** `poll` saw more failures in a row than `retries` allows. */
export class PollGaveUpError extends PolliteError {
  /** Attempts that failed in a row: `retries + 1`. */
  declare readonly attempts: number;
  /** Status of the last failure, or `undefined` for a network failure or timeout. */
  declare readonly status: number | undefined;

  constructor(attempts: number, status: number | undefined, cause: unknown) {
    super(`Polling gave up after ${attempts} failed attempt${attempts === 1 ? '' : 's'} in a row${status ? ` (last: HTTP ${status})` : ''}`, { cause });
    this.name = 'PollGaveUpError';
    this.attempts = attempts;
    this.status = status;
  }
}

/** Realm-safe guard for {@link PollGaveUpError}. */
export const isPollGaveUpError = (error: unknown): error is PollGaveUpError =>
  hasErrorName(error, 'PollGaveUpError');
