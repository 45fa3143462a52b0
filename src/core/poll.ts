import { sharedPoll } from '../cooperate/shared-poll.js';
import { linkedController } from '../env/abortable.js';
import { startTimer } from '../env/timer.js';
import { timeoutError } from '../errors/timeout-error.js';
import { linkSignals } from '../retry/link-signals.js';
import { normalizePollOptions, type NormalizedPollOptions } from './normalize-poll-options.js';
import type { PollOptions } from './poll-options.js';
import { pollLoop } from './poll-loop.js';
import { requestFactory } from './request.js';
import { checkInput } from './validate.js';

const noop = (): void => undefined;

const isSignal = (value: unknown): value is AbortSignal => typeof (value as AbortSignal | null | undefined)?.addEventListener === 'function';

/**
 * Polls `input` until `isDone` accepts a body, politely: one request in
 * flight, the next only after the last is handled; `If-None-Match` with the
 * last ETag; backoff with jitter after failures, Retry-After honoured as a
 * floor, and for the whole origin (cooldown); nothing sent while the page is
 * hidden or offline; 4xx fail fast. With `share`, callers of the same poll
 * share one request loop, in this realm or across tabs.
 *
 * Resolves with the terminal body. Rejects with `HttpError` (a status that
 * is not retried), `PollGaveUpError` (more than `maxAttempts` consecutive
 * failures), `ParseError`, a `TimeoutError` DOMException (`timeout`), or
 * `signal.reason` on abort. Bad options reject with a `TypeError` before
 * anything is sent.
 *
 * @example
 * const job = await poll('/api/jobs/42', {
 *   isDone: (job) => job.status === 'done' || job.status === 'failed',
 *   onUpdate: render,
 *   signal: controller.signal,
 * });
 */
export async function poll<T = unknown>(input: string | URL | Request, options?: PollOptions<T>): Promise<T> {
  checkInput(input);
  const given = normalizePollOptions(options);
  // The request's own signal (as with fetch, `init.signal` replaces a Request's) stops polling as `signal` does.
  const requestSignal = given.init.signal ?? (typeof input === 'object' && !(input instanceof URL) ? input.signal : undefined);
  const callers = isSignal(requestSignal) && requestSignal !== given.signal ? linkSignals(given.signal ? [given.signal, requestSignal] : [requestSignal]) : undefined;
  const o = callers ? { ...given, signal: callers.controller.signal } : given;
  try {
    if (o.signal?.aborted) throw o.signal.reason;
    return await ((o.share && sharedPoll(input, o)) || pollAlone(input, o));
  } finally {
    callers?.release();
  }
}

/** One caller's own request loop, bounded by its signal and deadline. */
async function pollAlone<T>(input: string | URL | Request, o: NormalizedPollOptions<T>): Promise<T> {
  // No signal and no deadline: nothing can abort the loop, so it runs without a controller.
  const loop = o.signal
    ? linkedController(o.signal)
    : o.timeout === undefined
      ? undefined
      : { controller: new AbortController(), release: noop };
  let lastFailure: unknown;
  const stopDeadline =
    o.timeout === undefined
      ? noop
      : startTimer(o.env, o.timeout, () =>
          loop?.controller.abort(timeoutError(`Polling timed out after ${o.timeout} ms`, lastFailure)),
        );
  const deadline = o.timeout === undefined ? Infinity : o.env.now() + o.timeout;
  try {
    return await pollLoop(requestFactory(input, o.init), o, loop?.controller.signal, deadline, (failure) => (lastFailure = failure));
  } finally {
    stopDeadline();
    loop?.release();
  }
}
