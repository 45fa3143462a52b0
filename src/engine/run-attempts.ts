import { deadline } from '../env/deadline.js';
import { abortable } from '../env/settle.js';
import { wait, type Wake } from '../env/wait.js';
import { timeoutError } from '../errors/timeout-error.js';
import { serverSays } from '../http/server-wait.js';
import { fitDeadline } from '../policy/deadline-rule.js';
import { responseOf } from '../policy/error-outcome.js';
import { retryDecision } from '../policy/retry-decision.js';
import { spread } from '../policy/spread.js';
import { nextSlowdown, slowsPace } from '../policy/throttle.js';
import type { AttemptSpec, Failed, Outcome } from './attempt-spec.js';
import type { GiveUpReason } from './events.js';
import type { Hold, LoopHooks, PollAnswer } from './hooks.js';

/** A wait fitted to the deadline: how long, when it ends (epoch ms), and whether it is the wait for the deadline itself. */
interface Fitted {
  ms: number;
  at: number;
  final: boolean;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * The one attempt loop of pollite, behind `poll`, `retry`,
 * `fetchWithRetry` and everything built on them: holds (pauses,
 * cooldowns, features), one attempt at a time under its own deadline, the
 * server's wait read once per answer and told to every feature, then either
 * the end (`done`), the pace after a success (the interval, paced by
 * features, the server's wait and a throttled slowdown), or the retry
 * decision after a failure (afforded by the budget). Every wait meets the
 * total deadline by `fitDeadline`. Leaves no timer or listener behind,
 * unless the result outlives it (`result` gets `release`).
 */
export async function runAttempts<T, R>(spec: AttemptSpec<T, R>): Promise<R> {
  const { env, hooks, policy, emit } = spec;
  const aborted = spec.signals.find((s) => s?.aborted);
  if (aborted) throw aborted.reason;
  const told = hooks.some((h) => h.answer || h.pace);
  const wakes = hooks.map((h) => h.wake).filter(Boolean) as Array<NonNullable<LoopHooks['wake']>>;
  const everyWakes = wakes.filter((w) => w.every);
  const networkWakes = wakes.filter((w) => w.network || w.every);
  const enders = hooks.filter((h) => h.end);
  const affords = hooks.filter((h) => h.afford);
  /** The last failure: the cause of a timeout (its error made only then: a poll's HttpError is made lazily). */
  let lastFailed: Failed<T> | undefined;
  const bound = deadline(env, spec.timeout, () => timeoutError(`${spec.timedOut} after ${spec.timeout} ms`, lastFailed?.error), ...spec.signals);
  const { signal, at: end } = bound;
  /** Whether the result outlives the loop and got `release` (fetchWithRetry's response, its body still to read). */
  let kept = false;
  /** Stops the current attempt's own deadline. */
  let stopAttempt: () => void = () => undefined;
  let attemptSignal: AbortSignal | undefined;
  const release = (): void => {
    stopAttempt();
    bound.stop();
  };
  const ended = async (ok: boolean): Promise<void> => {
    for (const h of enders) await h.end!(ok);
  };
  /** Ends the call with `make()`'s value, handing it `release` when the surface keeps its results alive. */
  const finish = (make: () => R): R => {
    kept = spec.keeps === true;
    try {
      return make();
    } catch (error) {
      kept = false;
      throw error;
    }
  };

  /** Attempt `attempt` failed (`failed`, or threw `thrown`) and is not retried: `givingUp` and the `give-up` event say why. */
  let gaveUp = false;
  /** The attempt `lastFailed` was. */
  let failedAttempt = 0;
  const giveUp = (reason: GiveUpReason, attempt: number, failed: Failed<T> | undefined, thrown?: unknown): void => {
    gaveUp = true;
    spec.givingUp?.(failed ? failed.error : thrown, attempt, reason);
    if (!emit) return;
    const status = failed ? failed.status : responseOf(thrown)?.status;
    emit({ type: 'give-up', attempt, reason, ...(status ? { status } : {}) });
  };

  /** Whether the last try before the deadline was made: after it, nothing more is sent. */
  let lastMade = false;
  let lastTry = 0;
  /**
   * The wait the deadline leaves of `ms` (`floor` of it asked by the server), whole ms; the ms to the deadline itself when no
   * try fits before it. `at`, when it ends, is fixed here once: the event that announces it and every hook told of it (a
   * checkpoint, the tab that may take over) get the same instant, however long the listeners in between take.
   */
  const fit = (ms: number, floor: number): Fitted => {
    const now = env.now();
    const fitted = fitDeadline(ms, floor, lastTry, now, end, lastMade);
    if (fitted.wait === 'deadline') return { ms: Math.max(0, end - now), at: Math.max(now, end), final: true };
    lastMade ||= fitted.last;
    return { ms: fitted.wait, at: now + fitted.wait, final: false };
  };
  /** Waits a fitted wait; one for the deadline itself ends only when it passes (it rejects), nothing wakes it. */
  const pause = async ({ ms, at, final }: Fitted, wakeBy: ReadonlyArray<Wake<string>>): Promise<void> => {
    for (const h of hooks) h.waiting?.(at, failures);
    const woke = await wait(env, final ? Infinity : ms, signal, final ? [] : wakeBy);
    if (woke) emit?.({ type: 'wake', reason: woke as 'now' });
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
    if (paused) emit?.({ type: 'resume' });
  };
  const held = async (hold: Hold, paused: boolean): Promise<void> => {
    const pauses = hold.ms === Infinity;
    if (pauses) {
      // A pause ends when its source clears (or the deadline passes).
      emit?.(hold.event);
      await wait(env, Infinity, signal, [hold.wake!]);
    } else {
      // A timed hold is the server's (a cooldown), a floor like a Retry-After: its event tells the wait the deadline leaves,
      // ending at the instant the `waiting` hooks are told.
      const fitted = fit(hold.ms, hold.ms);
      const { event } = hold;
      emit?.('delay' in event ? { ...event, delay: fitted.ms, at: fitted.at } : event);
      await pause(fitted, everyWakes);
    }
    await holdWhileAsked(0, paused || pauses);
  };

  let failures = spec.failures ?? 0;
  let previous = 0;
  /** How far the server's throttling has stretched the interval (see nextSlowdown); 0 when it has not. */
  let slowdown = 0;
  try {
    for (;;) {
      const holding = holdWhileAsked();
      if (holding) await holding;
      const attempt = failures + 1;
      spec.sending?.(attempt);
      const started = env.now();
      // A fresh signal per attempt (undici leaks listeners onto reused ones), and none when nothing can abort.
      const own = deadline(env, spec.attemptTimeout, () => timeoutError(`${spec.attemptTimedOut} after ${spec.attemptTimeout} ms`), signal);
      stopAttempt = own.stop;
      attemptSignal = own.signal;
      let outcome: Outcome<T>;
      try {
        outcome = await abortable(spec.send(attempt, own.signal), own.signal);
      } catch (error) {
        own.stop();
        if (signal?.aborted) throw signal.reason;
        const timedOut = own.passed();
        try {
          outcome = spec.thrown(timedOut ? own.signal!.reason : error, timedOut);
        } catch (thrown) {
          // What is never retried (a status `poll` does not retry, a bug) ends the call as itself.
          giveUp('not-retryable', attempt, undefined, thrown);
          throw thrown;
        }
      }
      const at = env.now();
      // How long before the deadline a last try must start: twice as long as this one took, so that an answer a little
      // slower still lands before it; at most a tenth of the whole (a cold first request can take a second on a busy
      // machine; it must not make the last try come early).
      lastTry = Math.min(2 * (at - started), (spec.timeout ?? 0) / 10);
      const { status, headers } = outcome;
      // The server's own word on when to come back, read once for the decision and every feature.
      const said = status ? serverSays(status, headers, at, outcome.failure ? (outcome.bodyWait ?? null) : null) : null;
      const asked = said && said.ms;
      if (told) {
        const answer: PollAnswer = { status, headers, data: outcome.failure ? undefined : outcome.value, at, asked };
        for (const h of hooks) h.answer?.(answer);
      }
      // Only a 429 slows the pace: a 503 says the server is down, not that this client asks too often.
      const throttled = slowsPace(status);
      if (throttled || (!outcome.failure && slowdown)) slowdown = nextSlowdown(slowdown, policy.interval, throttled, throttled ? env.random() : 0);

      if (!outcome.failure) {
        failures = 0;
        lastFailed = undefined;
        previous = 0;
        if (await spec.done(outcome)) {
          await ended(true);
          const succeeded = outcome;
          return spec.result ? finish(() => spec.result!(succeeded, release, attemptSignal)) : (outcome.value as unknown as R);
        }
        own.stop();
        let delay = policy.interval;
        if (told) {
          const answer: PollAnswer = { status, headers, data: outcome.value, at, asked };
          for (const h of hooks) if (h.pace) delay = h.pace(delay, answer);
        }
        // A 2xx's Retry-After (the long-running-operation convention) or announced reset is a floor too.
        const floor = asked ? spread(asked, env.random(), policy.maxRetryAfter) : 0;
        const fitted = fit(Math.ceil(Math.max(delay, floor, slowdown)), floor);
        // The signal that spoke is named when the server's floor is what this wait is.
        emit?.({ type: 'wait', delay: fitted.ms, at: fitted.at, ...(floor && floor >= delay && floor >= slowdown && { source: said!.source }) });
        await pause(fitted, wakes);
        continue;
      }

      const failed: Failed<T> = outcome;
      lastFailed = failed;
      failedAttempt = attempt;
      const wanted = spec.retryable !== false && (failed.timedOut === true || !spec.wanted || (await spec.wanted(failed, attempt)));
      if (signal?.aborted) throw signal.reason;
      if (!wanted) {
        // A failure the policy retries, of a call that may not be retried (a write without its key), gives up for the call's reason.
        const declined = spec.retryable === false && (failed.failure.type !== 'status' || policy.isRetryableStatus(status));
        // Ending in anything but a failure worth a retry counts as a success (a budget refunds).
        if (!declined) await ended(true);
        giveUp(declined ? (spec.unretryable ?? 'not-retryable') : 'not-retryable', attempt, failed);
        return finish(() => spec.fail(failed, 'unwanted', failures, release, attemptSignal));
      }
      const interval = status === 429 && slowdown > policy.interval ? slowdown : policy.interval;
      const decision = retryDecision(
        failed.failure.type !== 'status' ? failed.failure : { ...failed.failure, said },
        failures,
        interval === policy.interval ? policy : { ...policy, interval },
        at,
        env.random(),
        spec.prices,
        previous,
      );
      if (!decision.retry) {
        await ended(false);
        giveUp(decision.reason, attempt, failed);
        return finish(() => spec.fail(failed, decision.reason, decision.failures, release, attemptSignal));
      }
      for (const h of affords) {
        if (!(await h.afford!(decision))) {
          giveUp('budget', attempt, failed);
          return finish(() => spec.fail(failed, 'refused', decision.failures, release, attemptSignal));
        }
      }
      own.stop();
      spec.discard?.(failed);
      failures = decision.failures;
      previous = decision.backoff;
      const fitted = fit(decision.delay, decision.paced ? Math.min(decision.delay, decision.retryAfter!) : 0);
      if (fitted.final) {
        // No retry fits before the deadline: none is announced, the call gives up now and rejects when the deadline is due.
        giveUp('deadline', attempt, failed);
        await pause(fitted, []);
      }
      const delay = fitted.ms;
      spec.retrying?.(failed, attempt, delay, decision.paced, decision.source);
      emit?.({
        type: 'retry',
        attempt,
        failures,
        delay,
        at: fitted.at,
        reason: decision.reason,
        ...(decision.status === undefined ? {} : { status: decision.status }),
        retryAfter: decision.retryAfter,
        ...(decision.source && { source: decision.source }),
        ...(decision.paced && { paced: true }),
      });
      await pause(fitted, decision.reason === 'network' ? networkWakes : everyWakes);
    }
  } catch (error) {
    // The deadline passed after a failure (in the wait for its retry, or during that retry): the call gives up on it.
    if (bound.passed() && lastFailed && !gaveUp) giveUp('deadline', failedAttempt, lastFailed);
    throw error;
  } finally {
    if (!kept) release();
  }
}
