import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, isTimeoutError, retry } from '../../src/index.js';
import type { VirtualClock, VirtualTimer } from '../../src/testing/index.js';
import { fitWait, spreadWait, timedOutMessage } from './model-rules.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { answerArb, retryAfterArb, scriptedFetch, type Answer, type RetryAfterForm } from './scripted-server.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { flush, runVirtual, T0, VirtualPage, virtualClock, virtualEnv, type Settled } from './virtual-world.js';

// Model-based tests of `retry` and `fetchWithRetry` in virtual time, against
// the spec: every retryable failure counts (Retry-After included), at most
// `retries` retries, waits of exactly backoff(n), or the server's
// Retry-After spread up to 20 % above it and never past maxRetryAfter (one
// above the cap spread below it), in whole ms; the total deadline met, not
// guessed (a wait that would cross it shortened to one last try, never below
// the server's wait, then the deadline waited for); aborts end the call at
// once, the deadline at the deadline itself; and nothing is left behind.

const DEFAULT_MAX_RETRY_AFTER = 300_000;
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
  // undefined: the default, 300 s.
  maxRetryAfter: fc.option(fc.constantFrom(0, 1_000, 1_500, 30_000, 1_000_000), { nil: undefined }),
  random: fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
});
type Options = typeof optionsArb extends fc.Arbitrary<infer O> ? O : never;

/** The options every case passes to `retry` (and as `retry` to `fetchWithRetry`). */
const retryOptions = (options: Options) => ({
  retries: options.retries,
  backoff: (n: number) => n * options.backoffStep,
  ...(options.attemptTimeout === undefined ? {} : { attemptTimeout: options.attemptTimeout }),
  ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  ...(options.maxRetryAfter === undefined ? {} : { maxRetryAfter: options.maxRetryAfter }),
});

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
      // Every timer pollite (and this world) asked for is whole ms.
      for (const ms of clock.delays) expect(Number.isInteger(ms) && ms >= 0, `timer of ${ms} ms`).toBe(true);
      expect(unhandled.seen, 'unhandled rejections').toEqual([]);
    },
  };
}

/** One attempt as the model sees it. */
interface Tried {
  /** When it was made and when its outcome was known (its answer, its own timeout, its abort). */
  at: number;
  endedAt: number | undefined;
  /** A failure that is retried (while retries last). */
  failed: boolean;
  /** The server's wait it carried, uncapped (a valid Retry-After, 0 and dates past included); null when none. */
  asked: number | null;
  /** What the call would reject with after it: the failure as the caller sees it. */
  error?: unknown;
  /** Checks the cause of a TimeoutError that came after this failure. */
  isCause(cause: unknown): boolean;
}

/** What the model expects of the `onRetry` calls. */
type RetryInfoSeen = { attempt: number; delay: number; paced: boolean };

/**
 * Checks every wait between attempts against the spec, exactly (the random
 * is fixed, and no pause or cooldown holds these calls): after the n-th
 * failure, backoff(n), at least a second plus the spread (within the cap)
 * after a Retry-After under a second; the server's wait of a second or
 * more spread up to 20 % above it, never past the cap (spread below the cap
 * when it asked for more); each fitted to the deadline (fitWait). Also the
 * `onRetry` calls. Returns the last failure seen, for a TimeoutError's cause.
 */
function checkWaits(tried: Tried[], options: Options, settled: Settled<unknown>, cutShort: boolean, infos: RetryInfoSeen[]): Tried | undefined {
  const cap = options.maxRetryAfter ?? DEFAULT_MAX_RETRY_AFTER;
  const deadline = options.timeout === undefined ? Infinity : T0 + options.timeout;
  // An outcome the call saw: the abort's and the deadline's timers, set before any attempt's, fire first at the same instant.
  const seen = (at: number | undefined): at is number => at !== undefined && (at < settled.at || (at === settled.at && !cutShort));
  let lastMade = false;
  let lastFailure: Tried | undefined;
  let info = 0;
  for (let i = 0; i < tried.length; i++) {
    const t = tried[i]!;
    const next = tried[i + 1];
    if (!seen(t.endedAt)) {
      expect(next, 'an attempt after one whose outcome the call never saw').toBeUndefined();
      break;
    }
    const n = i + 1;
    if (!t.failed || n > options.retries) {
      expect(next, `an attempt after the end at attempt ${n}`).toBeUndefined();
      break;
    }
    lastFailure = t;
    const paced = t.asked !== null && t.asked >= 1000;
    const delay = paced ? spreadWait(t.asked!, options.random, cap) : Math.max(n * options.backoffStep, t.asked === null ? 0 : spreadWait(1000, options.random, cap));
    const floor = paced ? Math.min(delay, t.asked!, cap) : 0;
    const fit = fitWait(delay, floor, Math.min(2 * (t.endedAt - t.at), (options.timeout ?? 0) / 10), t.endedAt, deadline, lastMade);
    if (fit.wait !== 'deadline') lastMade ||= fit.last;
    const what = `wait after attempt ${n} (asked ${t.asked}): ${next ? next.at - t.endedAt : 'none'} ms, planned ${delay}, fitted ${fit.wait}`;
    if (fit.wait === 'deadline') {
      // No retry fits before the deadline: none is announced (the call gives up, `deadline`).
      expect(infos[info], `${what}: a retry announced though none fitted before the deadline`).toBeUndefined();
      expect(next, `${what}: an attempt though no try fitted before the deadline`).toBeUndefined();
      continue;
    }
    const told = infos[info++];
    expect(told, `${what}: onRetry`).toMatchObject({ attempt: n, paced });
    if (fit.wait === delay) expect(told!.delay, `${what}: onRetry's delay`).toBe(delay);
    if (!next) {
      // A try was due before the deadline: only the abort, or the deadline at the same instant, may have stopped it.
      if (!cutShort || settled.at > t.endedAt + fit.wait) expect.fail(`${what}: the try due at +${t.endedAt + fit.wait - T0} ms was never made`);
      continue;
    }
    const gap = next.at - t.endedAt;
    expect(gap, what).toBe(fit.wait);
    if (paced) {
      // The server's wait is never undercut, not even by the deadline; one above the cap, by no more than its spread below the cap.
      expect(gap, `${what}: below the server's Retry-After`).toBeGreaterThanOrEqual(t.asked! <= cap ? t.asked! : Math.floor(cap) / 1.2);
      expect(gap, `${what}: above maxRetryAfter`).toBeLessThanOrEqual(cap);
    }
  }
  expect(info, 'one onRetry per retry, no more').toBe(infos.length);
  return lastFailure;
}

/**
 * How a call may end besides the model's own end: never after the total
 * deadline; an abort rejects with its reason at that very moment; the total
 * deadline's TimeoutError only when it was due: the model's own end had not
 * come by then, and the call settled at the deadline itself, never before,
 * with the last failure as its cause. True when neither the abort nor the
 * deadline ended it, so the model's end must hold.
 */
function endedByModel(settled: Settled<unknown>, options: Options, aborted: boolean, reason: unknown, made: number, expected: number, lastKnownAt: number, lastFailure: Tried | undefined): boolean {
  const deadline = options.timeout === undefined ? Infinity : T0 + options.timeout;
  expect(settled.at).toBeLessThanOrEqual(deadline);
  if (aborted) {
    expect(!settled.ok && settled.error).toBe(reason);
    expect(settled.at).toBe(T0 + options.abortAt!);
    return false;
  }
  // Any other TimeoutError is an attempt's, the model's to say.
  if (settled.ok || !isTimeoutError(settled.error) || !(settled.error as Error).message.startsWith('Retrying')) return true;
  expect(options.timeout, 'the total deadline passed without a timeout').toBeDefined();
  expect((settled.error as Error).message).toBe(timedOutMessage('Retrying', options.timeout!));
  expect(settled.at, 'the total deadline rejected before it was due').toBe(deadline);
  const lastKnown = made > 0 ? lastKnownAt : T0;
  expect(made === expected && lastKnown < deadline, `the model's end came at +${lastKnown - T0} ms, before the deadline`).toBe(false);
  const cause = (settled.error as { cause?: unknown }).cause;
  if (lastFailure === undefined) expect(cause, 'a cause, though nothing failed').toBeUndefined();
  else expect(lastFailure.isCause(cause), `the last failure as the cause, got ${String(cause)}`).toBe(true);
  return false;
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
        const infos: RetryInfoSeen[] = [];
        if (options.abortAt !== undefined) clock.setTimeout(() => controller.abort(reason), options.abortAt);
        const run = fetchWithRetry(`http://fwr-${caseNumber++}.test/orders`, {
          signal: controller.signal,
          retry: {
            fetch: server.fetch,
            env: virtualEnv(clock, page, () => options.random),
            ...retryOptions(options),
            onRetry: ({ attempt, delay, paced }) => infos.push({ attempt, delay, paced }),
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
        const network = (a: Answer): boolean => a.kind === 'drop' || a.kind === 'refused';
        const fails = (a: Answer): boolean => timedOut(a) || network(a) || (a.kind === 'retryable' && RETRIED.has(a.status));
        let expectedRequests = 0;
        let expected: { status: number } | { error: 'network' | 'timeout' } | undefined;
        for (let i = 0, failures = 0; expected === undefined; i++) {
          const answer = script[i] ?? { kind: 'done', etag: null, latency: 5 };
          expectedRequests = i + 1;
          if (!fails(answer)) {
            expected = { status: answer.kind === 'not-modified' ? 304 : answer.kind === 'fatal' || answer.kind === 'retryable' ? answer.status : 200 };
            break;
          }
          failures += 1;
          if (failures > options.retries) {
            expected = timedOut(answer) ? { error: 'timeout' } : network(answer) ? { error: 'network' } : { status: (answer as { status: number }).status };
          }
        }
        expect(server.log.length).toBeLessThanOrEqual(expectedRequests);

        // Waits: exactly the spec's, fitted to the deadline. A refused connection (it never reached a server) backs off like any other.
        const cutShort = aborted || (!settled.ok && isTimeoutError(settled.error) && (settled.error as Error).message.startsWith('Retrying'));
        const tried: Tried[] = server.log.map((sent) => ({
          at: sent.at,
          endedAt: sent.endedAt,
          failed: fails(sent.answer),
          asked: !timedOut(sent.answer) && sent.answer.kind === 'retryable' && readable(sent.answer.retryAfter) ? sent.retryAfterMs : null,
          isCause: (cause) =>
            timedOut(sent.answer)
              ? isTimeoutError(cause) && (cause as Error).message === `Attempt timed out after ${options.attemptTimeout} ms`
              : network(sent.answer)
                ? cause instanceof TypeError
                : cause instanceof HttpError && cause.status === (sent.answer as { status: number }).status,
        }));
        const lastFailure = checkWaits(tried, options, settled, cutShort, infos);

        if (endedByModel(settled, options, aborted, reason, server.log.length, expectedRequests, server.log.at(-1)?.endedAt ?? Infinity, lastFailure)) {
          expect(server.log.length, 'requests').toBe(expectedRequests);
          if ('status' in expected!) expect(settled.ok && settled.value.status).toBe(expected.status);
          else if (expected!.error === 'network') expect(!settled.ok && settled.error).toBeInstanceOf(TypeError);
          else expect(!settled.ok && isTimeoutError(settled.error) && (settled.error as Error).message).toBe(`Attempt timed out after ${options.attemptTimeout} ms`);
        }
      }),
      { numRuns: FC_RUNS },
    );
  }, 300_000);
});

type Step =
  | { kind: 'ok'; latency: number }
  /** A network failure; `refused`: one that never reached a server (ECONNREFUSED): retry has no interval, so it backs off all the same. */
  | { kind: 'network' | 'refused' | 'bug'; latency: number }
  | { kind: 'http'; status: 429 | 503 | 404; retryAfter: RetryAfterForm; latency: number }
  | { kind: 'hang' };

const stepLatency = fc.integer({ min: 0, max: 30 }).map((n) => n * 10 + 5);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('ok' as const), latency: stepLatency }),
  fc.record({ kind: fc.constantFrom('network' as const, 'refused' as const, 'bug' as const), latency: stepLatency }),
  fc.record({ kind: fc.constant('http' as const), status: fc.constantFrom(429 as const, 503 as const, 404 as const), retryAfter: retryAfterArb, latency: stepLatency }),
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
        const calls: Array<{ at: number; endedAt?: number; step: Step; retryAfterMs: number | null; error?: unknown }> = [];
        let inFlight = 0;
        let maxInFlight = 0;
        const errors: unknown[] = [];
        const infos: RetryInfoSeen[] = [];
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
                call.error = signal.reason;
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
                  else if (step.kind === 'refused') error = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }) });
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
                  call.error = error;
                  reject(error);
                },
                step.latency,
              ));
            });
          },
          {
            signal: controller.signal,
            env: virtualEnv(clock, page, () => options.random),
            ...retryOptions(options),
            onRetry: ({ attempt, delay, paced }) => infos.push({ attempt, delay, paced }),
          },
        );
        const result = await settleAndCheck(clock, run, () => calls.length);
        const canEnd = options.abortAt !== undefined || options.timeout !== undefined || options.attemptTimeout !== undefined;
        // The model: the attempt that ends the call.
        const timesOut = (s: Step): boolean => options.attemptTimeout !== undefined && (s.kind === 'hang' || s.latency > options.attemptTimeout);
        const retried = (s: Step): boolean => timesOut(s) || s.kind === 'network' || s.kind === 'refused' || (s.kind === 'http' && s.status !== 404);
        let expectedCalls = 0;
        let end: { type: 'value' | 'error' | 'timeout' | 'hang'; index: number } | undefined;
        for (let i = 0, failures = 0; end === undefined; i++) {
          const step = script[i] ?? ({ kind: 'ok', latency: 5 } as Step);
          expectedCalls = i + 1;
          if (step.kind === 'hang' && options.attemptTimeout === undefined) end = { type: 'hang', index: i };
          else if (retried(step)) {
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

        const cutShort = aborted || (!settled.ok && isTimeoutError(settled.error) && (settled.error as Error).message.startsWith('Retrying'));
        const tried: Tried[] = calls.map((call) => ({
          at: call.at,
          endedAt: call.endedAt,
          failed: retried(call.step),
          asked: timesOut(call.step) ? null : call.retryAfterMs,
          // The failure itself, never a wrapper (an attempt's own TimeoutError for one that timed out).
          isCause: (cause) => cause === call.error,
        }));
        const lastFailure = checkWaits(tried, options, settled, cutShort, infos);

        if (endedByModel(settled, options, aborted, reason, calls.length, expectedCalls, calls.at(-1)?.endedAt ?? Infinity, lastFailure)) {
          expect(calls.length, 'attempts').toBe(expectedCalls);
          if (end!.type === 'value') expect(settled.ok && settled.value).toBe(`value ${end!.index}`);
          else if (end!.type === 'timeout') expect(!settled.ok && isTimeoutError(settled.error) && (settled.error as Error).message).toBe(`Attempt timed out after ${options.attemptTimeout} ms`);
          // The last error itself, never a wrapper.
          else expect(!settled.ok && settled.error).toBe(errors.at(-1));
        }
      }),
      { numRuns: FC_RUNS },
    );
  }, 300_000);
});
