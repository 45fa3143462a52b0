import { deadline } from '../env/deadline.js';
import { abortable } from '../env/settle.js';
import { wait, type Wake } from '../env/wait.js';
import { HttpError } from '../errors/http-error.js';
import { PollGaveUpError } from '../errors/poll-gave-up-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { discardBody } from '../http/body.js';
import type { Validators } from '../http/request.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { serverWait } from '../http/server-wait.js';
import { PACED_FROM, retryDecision, type RetryPolicy } from '../policy/retry-decision.js';
import { spread } from '../policy/spread.js';
import { nextSlowdown } from '../policy/throttle.js';
import { cooldownHooks } from './cooldown-hooks.js';
import type { Hold, LoopHooks, PollAnswer, PollCall } from './feature.js';
import type { PollEvent } from './poll-events.js';
import { pauseHooks } from './pauses.js';
import { answerOf, failed as failedRequest, type PendingHttpError, type RequestResult } from './request-answer.js';

const noHeaders = new Headers();

/** A sink's `event` that nobody listens to: the loop then builds no event objects. */
export const ignoreEvents = (_event: PollEvent): void => undefined;

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/** The built-in pauses and the cooldown, then every feature that joins. */
function attachAll(call: PollCall<unknown>): LoopHooks[] {
  const { settings } = call;
  const { env } = settings;
  // Features get the call itself as their LoopContext, typed to show only its request and settings.
  return [
    settings.pauseWhenHidden && pauseHooks('hidden', 'visible', { holds: () => env.visibility.hidden(), subscribe: (l) => env.visibility.subscribe(l) }),
    settings.pauseWhenOffline && pauseHooks('offline', 'online', { holds: () => env.online.offline(), subscribe: (l) => env.online.subscribe(l) }, true),
    settings.cooldown && cooldownHooks(call),
    ...settings.use.map((feature) => feature.attach?.(call)),
  ].filter(Boolean) as LoopHooks[];
}

/**
 * The request loop: holds (pauses, cooldowns), one request at a time, the
 * answer told to every feature, then the wait: the interval (paced by
 * features, never below a throttled slowdown) after a 2xx or 304, the retry
 * decision's after a failure. Resolves with the body the sink calls done;
 * rejects as documented on `poll`.
 */
export async function runLoop<T>(call: PollCall<T>): Promise<T> {
  const { request, settings: s, sink, timeout } = call;
  const { env } = s;
  // Events are built only for a sink that listens: a poll without onEvent allocates none.
  const listens = sink.event !== ignoreEvents;
  const emit = (event: PollEvent): void => sink.event(event);
  const hooks = attachAll(call as PollCall<unknown>);
  const told = hooks.some((h) => h.answer || h.pace);
  const wakes = hooks.map((h) => h.wake).filter(Boolean) as Array<NonNullable<LoopHooks['wake']>>;
  const everyWakes = wakes.filter((w) => w.every);
  const networkWakes = wakes.filter((w) => w.network || w.every);
  // The last failure, the cause of a give-up or a timeout; an HttpError is made only if one is thrown.
  let failed: { error: unknown } | PendingHttpError | undefined;
  const lastFailure = (): unknown => {
    if (failed && !('error' in failed)) failed = { error: new HttpError(failed.response, failed.url) };
    return failed?.error;
  };
  const bound = deadline(env, timeout, () => timeoutError(`Polling timed out after ${timeout} ms`, lastFailure()), call.signal);
  const { signal, at: end } = bound;

  const pastDeadline = (ms: number): DOMException =>
    timeoutError(`Polling would wait past its deadline (a ${Math.round(ms)} ms wait, ${Math.max(0, Math.round(end - env.now()))} ms left)`, lastFailure());
  /** Starts a wait of `ms` (throwing if it would pass the deadline); resolves with what woke it early, if anything. */
  const pause = (ms: number, wakeBy: ReadonlyArray<Wake<string>>): Promise<string | undefined> => {
    if (env.now() + ms > end) throw pastDeadline(ms);
    for (const h of hooks) h.waiting?.(env.now() + ms);
    return wait(env, ms, signal, wakeBy);
  };
  const woken = (woke: string | undefined): void => {
    if (woke) emit({ type: 'wake', reason: woke as 'now' });
  };
  /** Asks every hook for a hold, from the first again after each one, until none holds; synchronous while no hook is async. */
  const holdWhileAsked = (from = 0, paused = false): Promise<void> | void => {
    for (let i = from; i < hooks.length; i += 1) {
      const asked = hooks[i]!.hold?.();
      if (!asked) continue;
      if (!isThenable(asked)) return held(asked, paused);
      const next = i + 1;
      return Promise.resolve(asked).then((hold) => (hold ? held(hold, paused) : holdWhileAsked(next, paused)));
    }
    if (paused) emit({ type: 'resume' });
  };
  const held = async (hold: Hold, paused: boolean): Promise<void> => {
    emit(hold.event);
    const pauses = hold.ms === Infinity;
    if (pauses) await wait(env, Infinity, signal, [hold.wake!]);
    else woken(await pause(hold.ms, everyWakes));
    await holdWhileAsked(0, paused || pauses);
  };
  /** The policy of failures, with the interval a 429 sees while the server throttles. */
  const basePolicy: RetryPolicy = { retries: s.retries, backoff: s.backoff, maxRetryAfter: s.maxRetryAfter, interval: s.interval, countPaced: false, isRetryableStatus, deadline: end };
  const requestTimedOut = (): DOMException => timeoutError(`Request timed out after ${s.requestTimeout} ms`);
  const onResponse = listens ? (response: Response, started: number): void => emit({ type: 'response', status: response.status, ms: env.now() - started }) : undefined;

  let since: Validators | null = null;
  let failures = 0;
  /** How far the server's throttling has stretched the interval (see nextSlowdown); 0 when it has not. */
  let slowdown = 0;
  try {
    for (;;) {
      const holding = holdWhileAsked();
      if (holding) await holding;
      if (listens) emit({ type: 'request', attempt: failures + 1, conditional: since !== null });
      const started = env.now();
      // A fresh signal per request (undici leaks listeners onto reused ones), and none when nothing can abort.
      const own = deadline(env, s.requestTimeout, requestTimedOut, signal);
      let result: RequestResult | null | undefined;
      let response: Response | undefined;
      // Read once per response (each of a Response's getters costs a brand check); none without one.
      let status = 0;
      let headers: Headers = noHeaders;
      try {
        try {
          // Raced against the signal: a fetch that ignores its signal cannot hold pollite.
          response = await abortable(Promise.resolve(s.fetch(...request.args(since, own.signal))), own.signal);
        } catch (error) {
          result = failedRequest(error, signal, own.passed());
        }
        if (!result) {
          ({ status, headers } = response ?? ({} as Response));
          result = answerOf(response!, status, headers, request.url, onResponse, started);
        }
        if (!result) {
          try {
            result = { response: response!, data: await abortable(s.parse(response!), own.signal) };
          } catch (error) {
            result = failedRequest(error, signal, own.passed(), response, request.url);
          }
        }
      } finally {
        own.stop();
      }
      ({ response } = result);
      const at = env.now();
      const answer: PollAnswer | undefined = told ? { status, headers, data: result.failure ? undefined : result.data, at } : undefined;
      if (answer) for (const h of hooks) h.answer?.(answer);
      // The server's own word on when to come back: a Retry-After, or a reset with nothing left in the window.
      const asked = status ? serverWait(status, headers, at) : null;
      const throttled = status === 429 || (status === 503 && asked !== null && asked >= PACED_FROM);
      if (throttled || (!result.failure && slowdown)) slowdown = nextSlowdown(slowdown, s.interval, throttled, throttled ? env.random() : 0);
      if (!result.failure) {
        failures = 0;
        failed = undefined;
        if (status !== 304) {
          if (s.conditional) since = { etag: headers.get('etag'), lastModified: headers.get('last-modified') };
          if (!since?.etag && !since?.lastModified) since = null;
          if (await sink.update(result.data as T)) return result.data as T;
        }
        let delay = s.interval;
        if (answer) for (const h of hooks) if (h.pace) delay = h.pace(delay, answer);
        // A 2xx's Retry-After (the long-running-operation convention) or announced reset is a floor too.
        if (asked) delay = Math.max(delay, spread(Math.min(asked, s.maxRetryAfter), env.random()));
        delay = Math.max(delay, slowdown);
        if (listens) emit({ type: 'wait', delay, at: env.now() + delay });
        woken(await pause(delay, wakes));
        continue;
      }
      failed = result.pending ?? { error: result.error };
      const policy = status === 429 && slowdown > s.interval ? { ...basePolicy, interval: slowdown } : basePolicy;
      const decision = retryDecision(result.failure, failures, policy, env.now(), env.random());
      // Whether retried or given up on, a failed answer's body is never read: free its connection.
      if (response) discardBody(response);
      if (!decision.retry) {
        if (decision.reason === 'deadline') throw pastDeadline(decision.delay!);
        throw new PollGaveUpError(decision.failures, decision.status, lastFailure());
      }
      const attempt = failures + 1;
      failures = decision.failures;
      const { delay } = decision;
      if (listens) {
        emit({ type: 'retry', attempt, failures, delay, at: env.now() + delay, reason: decision.reason, ...(decision.status === undefined ? {} : { status: decision.status }), retryAfter: decision.retryAfter });
      }
      woken(await pause(delay, decision.reason === 'network' ? networkWakes : everyWakes));
    }
  } finally {
    bound.stop();
  }
}
