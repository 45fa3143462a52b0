import { abortable, linkedController } from '../env/abortable.js';
import { sleepIn } from '../env/sleep.js';
import { startTimer } from '../env/timer.js';
import { whenVisibleIn } from '../env/when-visible.js';
import { HttpError } from '../errors/http-error.js';
import { PollGaveUpError } from '../errors/poll-gave-up-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { discardBody, parseWith } from '../http/body.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { normalizePollOptions, type NormalizedPollOptions } from './normalize-poll-options.js';
import type { PollOptions } from './poll-options.js';
import { requestFactory } from './request.js';
import { retryDecision, type FailureOutcome, type RetryPolicy } from './retry-decision.js';
import { checkInput } from './validate.js';

const noop = (): void => undefined;

/**
 * Polls `input` until `isDone` accepts a body, politely: one request in
 * flight, the next only after the last is handled; `If-None-Match` with the
 * last ETag; backoff with jitter after failures, Retry-After honoured as a
 * floor; nothing sent while the page is hidden; 4xx fail fast.
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
  const o = normalizePollOptions(options);
  if (o.signal?.aborted) throw o.signal.reason;
  const loop = o.signal ? linkedController(o.signal) : { controller: new AbortController(), release: noop };
  let lastFailure: unknown;
  const stopDeadline =
    o.timeout === undefined
      ? noop
      : startTimer(o.env, o.timeout, () =>
          loop.controller.abort(timeoutError(`Polling timed out after ${o.timeout} ms`, lastFailure)),
        );
  const deadline = o.timeout === undefined ? Infinity : o.env.now() + o.timeout;
  try {
    return await run(input, o, loop.controller.signal, deadline, (failure) => (lastFailure = failure));
  } finally {
    stopDeadline();
    loop.release();
  }
}

async function run<T>(
  input: string | URL | Request,
  o: NormalizedPollOptions<T>,
  signal: AbortSignal,
  deadline: number,
  setLastFailure: (failure: unknown) => void,
): Promise<T> {
  const { env } = o;
  const emit = o.onEvent ?? noop;
  const request = requestFactory(input, o.init);
  const policy: RetryPolicy = {
    maxFailures: o.maxAttempts,
    backoff: o.backoff,
    maxRetryAfter: o.maxRetryAfter,
    interval: o.interval,
    countPaced: false,
    isRetryableStatus,
  };
  let etag: string | null = null;
  let failures = 0;
  let lastFailure: unknown;

  const wait = async (delay: number): Promise<void> => {
    if (env.now() + delay > deadline) {
      throw timeoutError(`Polling would wait past its ${deadline - env.now()} ms deadline`, lastFailure);
    }
    await sleepIn(env, delay, signal);
  };

  for (;;) {
    if (o.pauseWhenHidden && env.visibility.hidden()) {
      emit({ type: 'pause', reason: 'hidden' });
      await whenVisibleIn(env.visibility, signal);
      emit({ type: 'resume' });
    }
    const conditional: boolean = o.conditional && etag !== null;
    emit({ type: 'request', attempt: failures, conditional });
    const started = env.now();
    const attempt = linkedController(signal);
    let timedOut = false;
    const stopRequestTimer =
      o.requestTimeout === undefined
        ? noop
        : startTimer(env, o.requestTimeout, () => {
            timedOut = true;
            attempt.controller.abort(timeoutError(`Request timed out after ${o.requestTimeout} ms`));
          });
    let failure: FailureOutcome | undefined;
    let response: Response | undefined;
    try {
      try {
        response = await abortable(
          o.fetch(...request.args(conditional ? etag : null, attempt.controller.signal)),
          attempt.controller.signal,
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        failure = timedOut ? { type: 'timeout', error } : { type: 'network', error };
      }
      if (response) {
        emit({ type: 'response', status: response.status, ms: env.now() - started });
        if (response.status === 304) {
          discardBody(response);
          failures = 0;
        } else if (response.ok) {
          failures = 0;
          etag = response.headers.get('etag');
          let data: T | undefined;
          try {
            data = await abortable(parseWith(o.parse, response, request.url, attempt.controller.signal), attempt.controller.signal);
          } catch (error) {
            if (signal.aborted) throw signal.reason;
            if (!timedOut) throw error;
            failure = { type: 'timeout', error };
          }
          if (!failure) {
            o.onUpdate?.(data as T);
            if (o.isDone(data as T)) return data as T;
          }
        } else if (isRetryableStatus(response.status)) {
          failure = { type: 'status', status: response.status, retryAfter: response.headers.get('retry-after') };
        } else {
          throw new HttpError(response, request.url);
        }
      }
    } finally {
      stopRequestTimer();
      attempt.release();
    }

    if (!failure) {
      emit({ type: 'wait', delay: o.interval, at: env.now() + o.interval });
      await wait(o.interval);
      continue;
    }
    lastFailure = failure.type === 'status' ? new HttpError(response!, request.url) : failure.error;
    setLastFailure(lastFailure);
    const decision = retryDecision(failure, failures, policy, env.now(), env.random());
    if (!decision.retry) throw new PollGaveUpError(decision.failures, decision.status, lastFailure);
    if (response) discardBody(response);
    failures = decision.failures;
    const at = env.now() + decision.delay;
    emit({
      type: 'retry',
      attempt: failures,
      delay: decision.delay,
      at,
      reason: decision.reason,
      ...(decision.status === undefined ? {} : { status: decision.status }),
      retryAfter: decision.retryAfter,
    });
    await wait(decision.delay);
  }
}
