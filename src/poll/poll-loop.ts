import { deadline } from '../env/deadline.js';
import { wait, type Wake } from '../env/wait.js';
import { PollGaveUpError } from '../errors/poll-gave-up-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { discardBody } from '../http/body.js';
import type { Validators } from '../http/request.js';
import { isRetryableStatus } from '../http/retryable-status.js';
import { serverWait } from '../http/server-wait.js';
import { retryDecision } from '../policy/retry-decision.js';
import { spread } from '../policy/spread.js';
import { nextSlowdown } from '../policy/throttle.js';
import { cooldownHooks } from './cooldown-hooks.js';
import type { LoopHooks, PollAnswer, PollCall } from './feature.js';
import { pauseHooks } from './pauses.js';
import { sendRequest } from './send-request.js';

const noHeaders = new Headers();

/** The built-in pauses and the cooldown, then every feature that joins. */
function attachAll(call: PollCall<unknown>): LoopHooks[] {
  const { request, settings } = call;
  const { env } = settings;
  const hooks: LoopHooks[] = [];
  if (settings.pauseWhenHidden) hooks.push(pauseHooks('hidden', 'visible', { holds: () => env.visibility.hidden(), subscribe: (l) => env.visibility.subscribe(l) }));
  if (settings.pauseWhenOffline) hooks.push(pauseHooks('offline', 'online', { holds: () => env.online.offline(), subscribe: (l) => env.online.subscribe(l) }, true));
  if (settings.cooldown) hooks.push(cooldownHooks({ request, settings }));
  for (const feature of settings.use) {
    const joined = feature.attach?.({ request, settings });
    if (joined) hooks.push(joined);
  }
  return hooks;
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
  const emit = (event: Parameters<typeof sink.event>[0]): void => sink.event(event);
  const hooks = attachAll(call as PollCall<unknown>);
  const wakes = hooks.flatMap((h) => (h.wake ? [h.wake] : []));
  const everyWakes = wakes.filter((w) => w.every);
  const networkWakes = wakes.filter((w) => w.network || w.every);
  let lastFailure: unknown;
  const bound = deadline(env, timeout, () => timeoutError(`Polling timed out after ${timeout} ms`, lastFailure), call.signal);
  const { signal, at: end } = bound;

  const pause = async (ms: number, wakeBy: ReadonlyArray<Wake<string>> = []): Promise<void> => {
    if (env.now() + ms > end) throw pastDeadline(ms);
    for (const h of hooks) h.waiting?.(env.now() + ms);
    const woke = await wait(env, ms, signal, wakeBy);
    if (woke) emit({ type: 'wake', reason: woke as 'now' });
  };
  const pastDeadline = (ms: number): DOMException =>
    timeoutError(`Polling would wait past its deadline (a ${Math.round(ms)} ms wait, ${Math.max(0, Math.round(end - env.now()))} ms left)`, lastFailure);
  const holdWhileAsked = async (): Promise<void> => {
    let paused = false;
    for (let i = 0; i < hooks.length; ) {
      const hold = await hooks[i]!.hold?.();
      if (!hold) {
        i += 1;
        continue;
      }
      emit(hold.event);
      paused ||= hold.ms === Infinity;
      await (hold.ms === Infinity ? wait(env, Infinity, signal, [hold.wake!]) : pause(hold.ms, everyWakes));
      i = 0;
    }
    if (paused) emit({ type: 'resume' });
  };

  let since: Validators | null = null;
  let failures = 0;
  /** How far the server's throttling has stretched the interval (see nextSlowdown); 0 when it has not. */
  let slowdown = 0;
  try {
    for (;;) {
      await holdWhileAsked();
      emit({ type: 'request', attempt: failures + 1, conditional: since !== null });
      const started = env.now();
      const result = await sendRequest(request, s, since, signal, ({ status }) => emit({ type: 'response', status, ms: env.now() - started }));
      const { response } = result;
      const answer: PollAnswer = { status: response?.status ?? 0, headers: response?.headers ?? noHeaders, data: result.failure ? undefined : result.data, at: env.now() };
      for (const h of hooks) h.answer?.(answer);
      // The server's own word on when to come back: a Retry-After, or a reset with nothing left in the window.
      const asked = answer.status ? serverWait(answer.status, answer.headers, answer.at) : null;
      const throttled = answer.status === 429 || (answer.status === 503 && asked !== null);
      if (throttled || (!result.failure && slowdown)) slowdown = nextSlowdown(slowdown, s.interval, throttled, throttled ? env.random() : 0);
      if (!result.failure) {
        failures = 0;
        lastFailure = undefined;
        if (response!.status !== 304) {
          const { headers } = response!;
          if (s.conditional) since = { etag: headers.get('etag'), lastModified: headers.get('last-modified') };
          if (!since?.etag && !since?.lastModified) since = null;
          if (await sink.update(result.data as T)) return result.data as T;
        }
        let delay = s.interval;
        for (const h of hooks) if (h.pace) delay = h.pace(delay, answer);
        // A 2xx's Retry-After (the long-running-operation convention) or announced reset is a floor too.
        if (asked) delay = Math.max(delay, spread(Math.min(asked, s.maxRetryAfter), env.random()));
        delay = Math.max(delay, slowdown);
        emit({ type: 'wait', delay, at: env.now() + delay });
        await pause(delay, wakes);
        continue;
      }
      lastFailure = result.error;
      const policy = { retries: s.retries, backoff: s.backoff, maxRetryAfter: s.maxRetryAfter, interval: answer.status === 429 ? Math.max(s.interval, slowdown) : s.interval, countPaced: false, isRetryableStatus, deadline: end };
      const decision = retryDecision(result.failure, failures, policy, env.now(), env.random());
      // Whether retried or given up on, a failed answer's body is never read: free its connection.
      if (response) discardBody(response);
      if (!decision.retry) {
        if (decision.reason === 'deadline') throw pastDeadline(decision.delay!);
        throw new PollGaveUpError(decision.failures, decision.status, lastFailure);
      }
      const attempt = failures + 1;
      failures = decision.failures;
      const { delay } = decision;
      emit({ type: 'retry', attempt, failures, delay, at: env.now() + delay, reason: decision.reason, ...(decision.status === undefined ? {} : { status: decision.status }), retryAfter: decision.retryAfter });
      await pause(delay, decision.reason === 'network' ? networkWakes : everyWakes);
    }
  } finally {
    bound.stop();
  }
}
