import { nextPace, paceWait, startPace, type PaceSignal } from '../cooperate/adaptive-interval.js';
import { originCooldown } from '../cooperate/origin-cooldown.js';
import { abortable, linkedController } from '../env/abortable.js';
import { sleepOrWake, type WakeSource } from '../env/sleep-or-wake.js';
import { startTimer } from '../env/timer.js';
import { whenVisibleIn } from '../env/when-visible.js';
import { HttpError } from '../errors/http-error.js';
import { isParseError } from '../errors/parse-error.js';
import { PollGaveUpError } from '../errors/poll-gave-up-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { discardBody, parseWith } from '../http/body.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import type { NormalizedPollOptions } from './normalize-poll-options.js';
import type { RequestFactory } from './request.js';
import { retryDecision, type FailureOutcome } from './retry-decision.js';

const noop = (): void => undefined;

type WakeReason = 'visible' | 'online' | 'focus';

/** A reason to send nothing (`pauseWhenHidden`, `pauseWhenOffline`, `pauseWhenBlurred`). */
interface Pause {
  reason: 'hidden' | 'offline' | 'blurred';
  on: boolean;
  /** Whether the pause is in force now. */
  holds(): boolean;
  subscribe(listener: () => void): () => void;
  /** What ends an interval wait early once the pause is over. */
  wake: WakeReason;
}

/** A body's JSON, to tell an unchanged answer; undefined (always "changed") when it has none. */
const snapshot = (data: unknown): string | undefined => {
  try {
    return JSON.stringify(data);
  } catch {
    return undefined;
  }
};

/**
 * The poll loop itself: `poll` runs it for one caller, shared loops run it
 * for many through `o.onUpdate`/`o.isDone`/`o.onEvent`. Resolves with the
 * body `o.isDone` accepts; rejects as documented on `poll`.
 */
export async function pollLoop<T>(
  request: RequestFactory,
  o: NormalizedPollOptions<T>,
  signal: AbortSignal | undefined,
  deadline: number,
  setLastFailure: (failure: unknown) => void = noop,
): Promise<T> {
  const { env, pace } = o;
  const emit = o.onEvent ?? noop;
  const cooldown = o.cooldown ? originCooldown(request.url, o.maxRetryAfter) : undefined;
  // The pauses that are on: when each holds, how to hear it change, and the wake it gives an interval wait.
  const pauses = (
    [
      { reason: 'hidden', on: o.pauseWhenHidden, holds: () => env.visibility.hidden(), subscribe: (listener) => env.visibility.subscribe(listener), wake: 'visible' },
      { reason: 'offline', on: o.pauseWhenOffline, holds: () => env.online.offline(), subscribe: (listener) => env.online.subscribe(listener), wake: 'online' },
      { reason: 'blurred', on: o.pauseWhenBlurred, holds: () => env.focus.blurred(), subscribe: (listener) => env.focus.subscribe(listener), wake: 'focus' },
    ] satisfies Pause[]
  ).filter((pause) => pause.on);
  const pauseInForce = (): Pause | undefined => pauses.find((pause) => pause.holds());
  // Interval waits end early when the page comes back (Retry-After and cooldown waits never do).
  const intervalWakes = pauses.map((pause): WakeSource<WakeReason> => ({ reason: pause.wake, subscribe: pause.subscribe, ready: () => !pause.holds() }));
  const networkWakes = intervalWakes.filter((source) => source.reason === 'online');
  let state = pace && startPace(pace);
  let lastText: string | undefined;
  let etag: string | null = null;
  let failures = 0;
  let lastFailure: unknown;

  const wait = async (delay: number, wakes: Array<WakeSource<WakeReason>> = []): Promise<void> => {
    if (env.now() + delay > deadline) {
      const left = Math.max(0, Math.round(deadline - env.now()));
      throw timeoutError(`Polling would wait past its deadline (a ${Math.round(delay)} ms wait, ${left} ms left)`, lastFailure);
    }
    const woke = await sleepOrWake(env, delay, signal, wakes);
    if (woke) emit({ type: 'wake', reason: woke });
  };

  for (;;) {
    let pause = pauseInForce();
    if (pause) {
      while (pause) {
        emit({ type: 'pause', reason: pause.reason });
        await whenVisibleIn({ hidden: pause.holds, subscribe: pause.subscribe }, signal);
        pause = pauseInForce();
      }
      emit({ type: 'resume' });
    }
    const quiet = cooldown?.delay(env.now(), env.random) ?? 0;
    if (quiet > 0) {
      emit({ type: 'cooldown', delay: quiet, at: env.now() + quiet, origin: new URL(request.url).origin });
      await wait(quiet);
      continue;
    }
    const conditional: boolean = o.conditional && etag !== null;
    emit({ type: 'request', attempt: failures, conditional });
    const started = env.now();
    // Without a signal or a request timeout nothing can abort this request: skip the
    // controller, its listeners and the abort race, which cost more CPU than the rest
    // of the loop (and a fresh controller is needed, as undici leaks listeners onto reused signals).
    const attempt =
      signal || o.requestTimeout !== undefined
        ? signal
          ? linkedController(signal)
          : { controller: new AbortController(), release: noop }
        : undefined;
    const attemptSignal = attempt?.controller.signal;
    let timedOut = false;
    const stopRequestTimer =
      o.requestTimeout === undefined
        ? noop
        : startTimer(env, o.requestTimeout, () => {
            timedOut = true;
            attempt?.controller.abort(timeoutError(`Request timed out after ${o.requestTimeout} ms`));
          });
    let failure: FailureOutcome | undefined;
    let response: Response | undefined;
    let signalled: PaceSignal = 'unchanged';
    let paceRetryAfter: number | null = null;
    try {
      try {
        const sent: Promise<Response> = o.fetch(...request.args(conditional ? etag : null, attemptSignal));
        response = await (attemptSignal ? abortable(sent, attemptSignal) : sent);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        failure = timedOut ? { type: 'timeout', error } : { type: 'network', error };
      }
      if (response) {
        emit({ type: 'response', status: response.status, ms: env.now() - started });
        if (response.status === 304) {
          discardBody(response);
          failures = 0;
        } else if (response.ok) {
          if (pace) paceRetryAfter = parseRetryAfter(response.headers.get('retry-after'), { now: env.now(), max: o.maxRetryAfter });
          let data: T | undefined;
          try {
            const parsed = parseWith(o.parse, response, request.url, attemptSignal);
            data = await (attemptSignal ? abortable(parsed, attemptSignal) : parsed);
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            if (timedOut) failure = { type: 'timeout', error };
            // The connection broke while the body was read (fetch rejects a body read with a TypeError; a bad body
            // is a SyntaxError): a network failure like any other, not a bad body.
            else if (isParseError(error) && response.bodyUsed && (error.cause as Error | undefined)?.name === 'TypeError') {
              failure = { type: 'network', error: error.cause };
            } else throw error;
          }
          if (!failure) {
            // Only a body that arrived resets failures and moves the ETag: a body read that timed out is a failure,
            // and its ETag names data never seen (a 304 would then hide it for good).
            failures = 0;
            etag = response.headers.get('etag');
            o.onUpdate?.(data as T);
            if (o.isDone(data as T)) return data as T;
            if (pace) {
              const text = snapshot(data);
              signalled = text !== undefined && text === lastText ? 'unchanged' : 'changed';
              lastText = text;
            }
          }
        } else if (isRetryableStatus(response.status)) {
          failure = { type: 'status', status: response.status, retryAfter: response.headers.get('retry-after') };
        } else {
          throw new HttpError(response, request.url);
        }
      }
    } finally {
      stopRequestTimer();
      attempt?.release();
    }

    if (!failure) {
      // A deadline met after a recovery has no failure to blame.
      if (lastFailure !== undefined) setLastFailure((lastFailure = undefined));
      let delay = o.interval;
      if (pace && state) {
        state = nextPace(state, pace, signalled, 0, paceRetryAfter);
        delay = paceWait(state, pace);
      }
      emit({ type: 'wait', delay, at: env.now() + delay });
      await wait(delay, intervalWakes);
      continue;
    }
    lastFailure = failure.type === 'status' ? new HttpError(response!, request.url) : failure.error;
    setLastFailure(lastFailure);
    if (pace && state && failure.type === 'status' && failure.status === 429) state = nextPace(state, pace, 'throttled', env.random());
    const policy = {
      maxFailures: o.maxAttempts,
      backoff: o.backoff,
      maxRetryAfter: o.maxRetryAfter,
      interval: pace && state ? paceWait(state, pace) : o.interval,
      countPaced: false,
      isRetryableStatus,
    };
    const decision = retryDecision(failure, failures, policy, env.now(), env.random());
    if (!decision.retry) throw new PollGaveUpError(decision.failures, decision.status, lastFailure);
    if (response) discardBody(response);
    cooldown?.note(response?.status ?? 0, decision.retryAfter, env.now());
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
    await wait(decision.delay, decision.reason === 'network' ? networkWakes : []);
  }
}
