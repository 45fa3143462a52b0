import { isHttpError, isParseError, isPollGaveUpError, isTimeoutError } from '../index.js';
import { isCheckpointRefusedError } from '../resume/index.js';

/** The exit codes of `pollite`, as documented in the README. */
export const EXIT = Object.freeze({
  /** An `--until` condition (or, without one, any 2xx) matched. */
  ok: 0,
  /** A `--fail-when` condition matched. */
  failed: 1,
  /** A status that is not retried, an unparsable or too large body, a request failure that is not retried, or more failures in a row than `--retries` allows. */
  http: 2,
  /** A bug in pollite itself (EX_SOFTWARE). */
  software: 70,
  /** A usage error (EX_USAGE), or a `--state` file that holds another poll. */
  usage: 64,
  /** `--timeout` passed, as timeout(1) reports it. */
  timeout: 124,
  /** Interrupted by Ctrl-C: 128 + SIGINT. */
  interrupted: 130,
  /** Stopped by SIGTERM: 128 + SIGTERM. */
  terminated: 143,
});

/** Why the command was stopped from outside; used as the abort reason of its signal. */
export class Interrupted extends Error {
  readonly exitCode: number;

  constructor(signalName: 'SIGINT' | 'SIGTERM') {
    super(signalName === 'SIGINT' ? 'interrupted' : 'terminated');
    this.name = 'Interrupted';
    this.exitCode = signalName === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
  }
}

/**
 * fetch's own rejection for a request that failed on the way (undici's `fetch failed`), which
 * poll does not retry: a redirect loop, a name that does not resolve, an answer undici chokes on.
 * The command sends a fixed GET with checked headers, so from it this is never a bug of its own.
 */
export const isFetchFailure = (error: unknown): error is TypeError => error instanceof TypeError && error.message === 'fetch failed';

/** The exit code for an error `poll` rejected with. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof Interrupted) return error.exitCode;
  if (isTimeoutError(error)) return EXIT.timeout;
  // A --state file that holds another poll (or one this release cannot read) is the caller's to look at.
  if (isCheckpointRefusedError(error)) return EXIT.usage;
  if (isHttpError(error) || isPollGaveUpError(error) || isParseError(error) || isFetchFailure(error)) return EXIT.http;
  return EXIT.software;
}
