import { link } from '../env/link.js';
import { checkInput } from '../http/check-input.js';
import { conditional } from '../http/conditional.js';
import { requestFactory } from '../http/request.js';
import type { PollCall, PollFeature, PollRunner } from './feature.js';
import { normalizePollOptions, warnIfEndless } from './normalize-poll-options.js';
import type { PollOptions } from './poll-options.js';
import { ignoreEvents, runLoop } from './poll-loop.js';

const isSignal = (value: unknown): value is AbortSignal => typeof (value as AbortSignal | null | undefined)?.addEventListener === 'function';

/** The runner for the features from `index` on: each feature's `run` around the next, the loop last. */
const runnerFrom =
  (features: readonly PollFeature[], index: number): PollRunner =>
  (call) => {
    for (let i = index; i < features.length; i += 1) {
      const run = features[i]!.run;
      if (run) return run(call, runnerFrom(features, i + 1));
    }
    return runLoop(call);
  };

/**
 * Polls `input` until `isDone` accepts a body, politely: one request in
 * flight, the next only after the last is handled; `If-None-Match` with the
 * last ETag; backoff with jitter after failures, Retry-After honoured as a
 * floor, and for the whole origin (cooldown); a slower pace while the
 * server throttles; nothing sent while the page is hidden or offline; 4xx
 * fail fast. Opt-in features (`use`) add sharing, one tab for all and more.
 *
 * Resolves with the terminal body. Rejects with `HttpError` (a status that
 * is not retried), `PollGaveUpError` (more than `retries` failures in a
 * row), `ParseError`, a `TimeoutError` DOMException (`timeout`), or
 * `signal.reason` on abort. Bad options reject with a `TypeError` before
 * anything is sent, and so does a request that fetch refuses (a body on a
 * GET): such bugs are never retried.
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
  const { settings } = o;
  // The request's own signal (as with fetch, `init.signal` replaces a Request's) stops polling as `signal` does.
  const requestSignal = settings.init.signal ?? (input as Partial<Request>).signal;
  const callers = isSignal(requestSignal) && requestSignal !== o.signal ? link(o.signal, requestSignal) : undefined;
  const signal = callers ? callers.controller.signal : o.signal;
  if (typeof __DEV__ === 'undefined' || __DEV__) warnIfEndless(options, signal);
  const { onUpdate, isDone, onEvent } = o;
  const call: PollCall<T> = {
    request: requestFactory(input, settings.init, conditional),
    settings,
    signal,
    timeout: o.timeout,
    sink: {
      update: onUpdate
        ? async (data) => {
            await onUpdate(data);
            return isDone(data);
          }
        : (data) => isDone(data),
      event: onEvent ? (event) => onEvent(event) : ignoreEvents,
    },
  };
  try {
    if (signal?.aborted) throw signal.reason;
    return await runnerFrom(settings.use, 0)(call);
  } finally {
    callers?.release();
  }
}
