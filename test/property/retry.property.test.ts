import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, isTimeoutError, retry } from '../../src/index.js';
import type { VirtualClock, VirtualTimer } from '../../src/testing/index.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { answerArb, retryAfterArb, scriptedFetch, type Answer, type RetryAfterForm } from './scripted-server.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { flush, runVirtual, T0, VirtualPage, virtualClock, virtualEnv, type Settled } from './virtual-world.js';

// Model-based tests of `retry` and `fetchWithRetry` in virtual time, against
// the spec: every retryable failure counts (Retry-After included), at most
// `retries` retries, waits of exactly backoff(n) or between Retry-After and
// 1.2 times it (capped by maxRetryAfter), aborts and deadlines end the call
// at once, and nothing is left behind.

const MAX_RETRY_AFTER = 300_000;
// A fresh origin per case: origin cooldowns are realm-wide state.
let caseNumber = 0;
const unhandled = watchUnhandled();
// Every listener on every EventTarget: the caller's signal, the loop's, each attempt's.
const listeners = trackListeners();
afterAll(() => {
  unhandled.stop();
  listeners.uninstall();
});

const optionsArb = fc.record({
  retries: fc.integer({ min: 0, max: 4 }),
  backoffStep: fc.integer({ min: 0, max: 2_000 }),
  attemptTimeout: fc.option(fc.integer({ min: 1, max: 30 }).map((n) => n * 10), { nil: undefined }),
  timeout: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined }),
  abortAt: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
  random: fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
});
type Options = typeof optionsArb extends fc.Arbitrary<infer O> ? O : never;

/** Common checks after a run: the call settled, nothing pending or attached, nothing sent afterwards. */
async function settleAndCheck<T>(clock: VirtualClock, running: Promise<T>, calls: () => number) {
  const settled = await runVirtual(clock, running);
  return settled && {
    settled,
    async after() {
      // A response's body holds the call's signal and deadlines until it is read or cancelled, as with fetch.
      if (settled.ok && settled.value instanceof Response) await settled.value.body?.cancel();
      expect(clock.pending('env'), 'timers left after settle').toBe(0);
      expect(listeners.live(), 'listeners left on any signal or EventTarget').toEqual([]);
      // Not vacuous: the call listens on the caller's signal at least.
      expect(listeners.added(), 'listeners added').toBeGreaterThan(0);
      const callsAtSettle = calls();
      while (clock.step()) await flush();
      expect(calls(), 'attempts after settle').toBe(callsAtSettle);
      expect(unhandled.seen, 'unhandled rejections').toEqual([]);
    },
  };
}

/** How far a call got: attempts made and expected by the model, when the last one's outcome was known, the wait planned after it. */
interface Progress {
  made: number;
  expected: number;
  /** When the last attempt's outcome was known (its answer, its timeout, its abort). */
  lastKnownAt: number;
  /** The wait the spec plans after the last attempt (see {@link plannedWait}); undefined when none follows. */
  plannedAfterLast: number | undefined;
}

/**
 * How a call may end besides the model's own end: never after the total
 * deadline; an abort rejects with its reason at that very moment; a
 * TimeoutError of the total deadline only when it was due: the model's own
 * end had not come by then, and the call settled at the deadline itself, or
 * when the last attempt failed and the wait planned after it would have
 * ended past the deadline. True when neither the abort nor the deadline
 * ended it, so the model's end must hold.
 */
function endedByModel(settled: Settled<unknown>, options: Options, aborted: boolean, reason: unknown, progress: Progress): boolean {
  const deadline = options.timeout === undefined ? Infinity : T0 + options.timeout;
  expect(settled.at).toBeLessThanOrEqual(deadline);
  if (aborted) {
    expect(!settled.ok && settled.error).toBe(reason);
    expect(settled.at).toBe(T0 + options.abortAt!);
    return false;
  }
  // Without a total deadline a TimeoutError is an attempt's, the model's to say.
  if (settled.ok || !isTimeoutError(settled.error) || options.timeout === undefined) return true;
  const lastKnown = progress.made > 0 ? progress.lastKnownAt : T0;
  // The model's last attempt came to its end before the deadline: the model's end holds (an attempt's TimeoutError included).
  if (progress.made === progress.expected && lastKnown < deadline) return true;
  if (settled.at !== deadline) {
    const early = `a TimeoutError at +${settled.at - T0} ms, before the deadline at +${deadline - T0} ms`;
    expect((settled.error as Error).message, early).toMatch(/would wait past its/);
    expect(Math.abs(settled.at - lastKnown), `${early}: not when the last attempt failed (+${lastKnown - T0} ms)`).toBeLessThan(1e-3);
    expect(progress.plannedAfterLast, `${early}: no wait follows the last attempt`).toBeDefined();
    expect(lastKnown + progress.plannedAfterLast!, `${early}: the wait it planned (${progress.plannedAfterLast} ms) ends before the deadline`).toBeGreaterThan(deadline - 1e-3);
  }
  return false;
}

/** The wait the spec plans before attempt `n + 1`, exactly (the random is fixed): see {@link expectWait}. */
function plannedWait(retryAfterMs: number | null, n: number, options: Options): number {
  const backoff = n * options.backoffStep;
  if (retryAfterMs !== null && retryAfterMs >= 1000) return Math.min(retryAfterMs, MAX_RETRY_AFTER) * (1 + 0.2 * options.random);
  if (retryAfterMs !== null) return Math.max(backoff, 1000 * (1 + 0.2 * options.random));
  return backoff;
}

/**
 * The wait before attempt `n + 1`: the server's Retry-After of a second or more plus at most 20 % (the
 * floor capped); a valid one under a second: backoff(n), but at least a second plus the spread; else
 * backoff(n) exactly.
 */
function expectWait(gap: number, retryAfterMs: number | null, n: number, options: Options): void {
  const backoff = n * options.backoffStep;
  if (retryAfterMs !== null && retryAfterMs >= 1000) {
    expect(gap).toBeGreaterThanOrEqual(Math.min(retryAfterMs, MAX_RETRY_AFTER));
    expect(gap).toBeLessThanOrEqual(Math.min(MAX_RETRY_AFTER, retryAfterMs) * 1.2 + 1e-6);
  } else if (retryAfterMs !== null) {
    expect(gap).toBeGreaterThanOrEqual(Math.max(backoff, 1000) - 1e-6);
    expect(gap).toBeLessThanOrEqual(Math.max(backoff, 1200) + 1e-6);
  } else {
    expect(gap).toBeCloseTo(backoff, 6);
  }
}

/** A Retry-After the decision can read (`0` and dates past included): the server's figure, or garbage and none. */
function readable(form: RetryAfterForm): boolean {
  return form.form === 'seconds' || form.form === 'date';
}

describe('fetchWithRetry, model-based (virtual time, modelled server)', () => {
  const RETRIED = new Set([408, 429, 500, 502, 503, 504]);

  it(`matches the spec on generated servers and interruptions (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { maxLength: 8 }), optionsArb, async (script, options) => {
        const clock = virtualClock();
        const page = new VirtualPage(clock);
        const server = scriptedFetch(clock, page, script);
        listeners.forget();
        const controller = new AbortController();
        const reason = new Error('aborted by the test');
        if (options.abortAt !== undefined) clock.setTimeout(() => controller.abort(reason), options.abortAt);
        const run = fetchWithRetry(`http://fwr-${caseNumber++}.test/orders`, {
          signal: controller.signal,
          retry: {
            fetch: server.fetch,
            env: virtualEnv(clock, page, () => options.random),
            retries: options.retries,
            backoff: (n) => n * options.backoffStep,
            ...(options.attemptTimeout === undefined ? {} : { attemptTimeout: options.attemptTimeout }),
            ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
          },
        });
        const result = await settleAndCheck(clock, run, () => server.log.length);
        expect(result, 'fetchWithRetry hung').toBeDefined();
        const { settled } = result!;
        const aborted = controller.signal.aborted;
        await result!.after();
        expect(server.inFlight.max).toBeLessThanOrEqual(1);

        // The model: which answer ends the call, after how many requests.
        const timedOut = (a: Answer): boolean => options.attemptTimeout !== undefined && a.latency > options.attemptTimeout;
        let expectedRequests = 0;
        let expected: { status: number } | { error: 'network' | 'timeout' } | undefined;
        for (let i = 0, failures = 0; expected === undefined; i++) {
          const answer = script[i] ?? { kind: 'done', etag: null, latency: 5 };
          expectedRequests = i + 1;
          const failed = timedOut(answer) || answer.kind === 'drop' || (answer.kind === 'retryable' && RETRIED.has(answer.status));
          if (!failed) {
            expected = { status: answer.kind === 'not-modified' ? 304 : answer.kind === 'fatal' || answer.kind === 'retryable' ? answer.status : 200 };
            break;
          }
          failures += 1;
          if (failures > options.retries) {
            expected = timedOut(answer) ? { error: 'timeout' } : answer.kind === 'drop' ? { error: 'network' } : { status: (answer as { status: number }).status };
          }
        }
        expect(server.log.length).toBeLessThanOrEqual(expectedRequests);
        const last = server.log.at(-1);
        const pacedAfter = (sent: (typeof server.log)[number]): number | null =>
          !timedOut(sent.answer) && sent.answer.kind === 'retryable' && readable(sent.answer.retryAfter) ? sent.retryAfterMs! : null;
        const lastFailed = last !== undefined && (timedOut(last.answer) || last.answer.kind === 'drop' || (last.answer.kind === 'retryable' && RETRIED.has(last.answer.status)));
        const progress: Progress = {
          made: server.log.length,
          expected: expectedRequests,
          lastKnownAt: last?.endedAt ?? Infinity,
          plannedAfterLast: lastFailed && server.log.length <= options.retries ? plannedWait(pacedAfter(last), server.log.length, options) : undefined,
        };
        if (endedByModel(settled, options, aborted, reason, progress)) {
          expect(server.log.length, 'requests').toBe(expectedRequests);
          if ('status' in expected!) expect(settled.ok && settled.value.status).toBe(expected.status);
          else if (expected!.error === 'network') expect(!settled.ok && settled.error).toBeInstanceOf(TypeError);
          else expect(!settled.ok && isTimeoutError(settled.error)).toBe(true);
        }

        // Waits: backoff(n) exactly, or the server's Retry-After plus at most 20%.
        for (let i = 0; i + 1 < server.log.length; i++) {
          const sent = server.log[i]!;
          const gap = server.log[i + 1]!.at - sent.endedAt!;
          expectWait(gap, pacedAfter(sent), i + 1, options);
        }
      }),
      { numRuns: FC_RUNS },
    );
  }, 300_000);
});

type Step =
  | { kind: 'ok'; latency: number }
  | { kind: 'network' | 'bug'; latency: number }
  | { kind: 'http'; status: 429 | 503 | 404; retryAfter: RetryAfterForm; latency: number }
  | { kind: 'hang' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('ok' as const), latency: fc.integer({ min: 0, max: 30 }).map((n) => n * 10 + 5) }),
  fc.record({ kind: fc.constantFrom('network' as const, 'bug' as const), latency: fc.integer({ min: 0, max: 30 }).map((n) => n * 10 + 5) }),
  fc.record({ kind: fc.constant('http' as const), status: fc.constantFrom(429 as const, 503 as const, 404 as const), retryAfter: retryAfterArb, latency: fc.integer({ min: 0, max: 30 }).map((n) => n * 10 + 5) }),
  fc.constant({ kind: 'hang' as const }),
);

describe('retry, model-based (virtual time, scripted attempts)', () => {
  it(`counts, paces, stops and cleans up as specified (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 8 }), optionsArb, async (script, options: Options) => {
        const clock = virtualClock();
        const page = new VirtualPage(clock);
        listeners.forget();
        const controller = new AbortController();
        const reason = new Error('aborted by the test');
        if (options.abortAt !== undefined) clock.setTimeout(() => controller.abort(reason), options.abortAt);
        caseNumber += 1;
        const calls: Array<{ at: number; endedAt?: number; step: Step; retryAfterMs: number | null }> = [];
        let inFlight = 0;
        let maxInFlight = 0;
        const errors: unknown[] = [];
        const run = retry(
          ({ signal }) => {
            const step = script[calls.length] ?? ({ kind: 'ok', latency: 5 } as Step);
            const call: (typeof calls)[number] = { at: clock.now(), step, retryAfterMs: null };
            calls.push(call);
            inFlight += 1;
            maxInFlight = Math.max(maxInFlight, inFlight);
            return new Promise<string>((resolve, reject) => {
              const timers: VirtualTimer[] = [];
              const end = (): void => {
                inFlight -= 1;
                call.endedAt = clock.now();
                signal.removeEventListener('abort', onAbort);
              };
              const onAbort = (): void => {
                for (const timer of timers) clock.clearTimeout(timer);
                end();
                reject(signal.reason);
              };
              signal.addEventListener('abort', onAbort, { once: true });
              if (step.kind === 'hang') return;
              timers.push(clock.setTimeout(
                () => {
                  end();
                  if (step.kind === 'ok') return resolve(`value ${calls.length - 1}`);
                  let error: unknown;
                  if (step.kind === 'network') error = new TypeError('fetch failed');
                  else if (step.kind === 'bug') error = new RangeError('a bug, never retried');
                  else if (step.kind === 'http') {
                    const form = step.retryAfter;
                    let header: string | null = null;
                    if (form.form === 'seconds') [header, call.retryAfterMs] = [String(form.seconds), form.seconds * 1000];
                    if (form.form === 'garbage') header = form.text;
                    if (form.form === 'date') {
                      const at = Math.floor(clock.now() / 1000) * 1000 + form.offsetSeconds * 1000;
                      [header, call.retryAfterMs] = [new Date(at).toUTCString(), Math.max(0, at - clock.now())];
                    }
                    error = new HttpError(new Response(null, { status: step.status, headers: header === null ? {} : { 'retry-after': header } }), `http://retry-${caseNumber}.test/`);
                  }
                  errors.push(error);
                  reject(error);
                },
                step.latency,
              ));
            });
          },
          {
            signal: controller.signal,
            env: virtualEnv(clock, page, () => options.random),
            retries: options.retries,
            backoff: (n) => n * options.backoffStep,
            ...(options.attemptTimeout === undefined ? {} : { attemptTimeout: options.attemptTimeout }),
            ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
          },
        );
        const result = await settleAndCheck(clock, run, () => calls.length);
        const canEnd = options.abortAt !== undefined || options.timeout !== undefined || options.attemptTimeout !== undefined;
        // The model: the attempt that ends the call.
        const timesOut = (s: Step): boolean => options.attemptTimeout !== undefined && (s.kind === 'hang' || s.latency > options.attemptTimeout);
        let expectedCalls = 0;
        let end: { type: 'value' | 'error' | 'timeout' | 'hang'; index: number } | undefined;
        for (let i = 0, failures = 0; end === undefined; i++) {
          const step = script[i] ?? ({ kind: 'ok', latency: 5 } as Step);
          expectedCalls = i + 1;
          if (step.kind === 'hang' && options.attemptTimeout === undefined) end = { type: 'hang', index: i };
          else if (timesOut(step) || step.kind === 'network' || (step.kind === 'http' && step.status !== 404)) {
            failures += 1;
            if (failures > options.retries) end = { type: timesOut(step) ? 'timeout' : 'error', index: i };
          } else end = { type: step.kind === 'ok' ? 'value' : 'error', index: i };
        }
        if (!result) {
          // Only an attempt that never settles, with nothing able to end it, may leave the call pending.
          expect(canEnd).toBe(false);
          expect(end!.type).toBe('hang');
          return;
        }
        const { settled } = result;
        const aborted = controller.signal.aborted;
        await result.after();
        expect(maxInFlight).toBeLessThanOrEqual(1);
        expect(calls.length).toBeLessThanOrEqual(expectedCalls);
        const lastCall = calls.at(-1);
        const retried = (s: Step): boolean => timesOut(s) || s.kind === 'network' || (s.kind === 'http' && s.status !== 404);
        const progress: Progress = {
          made: calls.length,
          expected: expectedCalls,
          lastKnownAt: lastCall?.endedAt ?? Infinity,
          plannedAfterLast: lastCall && retried(lastCall.step) && calls.length <= options.retries ? plannedWait(timesOut(lastCall.step) ? null : lastCall.retryAfterMs, calls.length, options) : undefined,
        };
        if (endedByModel(settled, options, aborted, reason, progress)) {
          expect(calls.length, 'attempts').toBe(expectedCalls);
          if (end!.type === 'value') expect(settled.ok && settled.value).toBe(`value ${end!.index}`);
          else if (end!.type === 'timeout') expect(!settled.ok && isTimeoutError(settled.error)).toBe(true);
          // The last error itself, never a wrapper.
          else expect(!settled.ok && settled.error).toBe(errors.at(-1));
        }
        for (let i = 0; i + 1 < calls.length; i++) {
          const call = calls[i]!;
          const gap = calls[i + 1]!.at - call.endedAt!;
          expectWait(gap, timesOut(call.step) ? null : call.retryAfterMs, i + 1, options);
        }
      }),
      { numRuns: FC_RUNS },
    );
  }, 300_000);
});
