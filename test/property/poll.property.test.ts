import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isHttpError, isParseError, isPollGaveUpError, isTimeoutError, poll, type PollEvent } from '../../src/index.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { fitWait, spreadWait, SPREAD, timedOutMessage } from './model-rules.js';
import { answerArb, modelRun, scriptedFetch, verdict, type Answer } from './scripted-server.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { flush, runVirtual, T0, VirtualPage, virtualClock, virtualEnv } from './virtual-world.js';

// Model-based: generated server scripts, options and interruptions drive the
// real `poll` in virtual time; every run is checked against the spec's model
// and the invariants of issue 9 (shrunk to a minimal case on failure).

const optionsArb = fc.record({
  interval: fc.integer({ min: 0, max: 100 }).map((n) => n * 10),
  retries: fc.integer({ min: 0, max: 4 }),
  maxRetryAfter: fc.constantFrom(0, 1_000, 30_000, 300_000, 1_000_000),
  backoffStep: fc.integer({ min: 0, max: 2_000 }),
  requestTimeout: fc.option(fc.integer({ min: 1, max: 30 }).map((n) => n * 10), { nil: undefined }),
  conditional: fc.boolean(),
  cooldown: fc.boolean(),
  // Uniform in [0, 1): fc.double would mostly draw the edges.
  random: fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
});

const interruptionsArb = fc.record({
  abortAt: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
  timeout: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: undefined }),
  hiddenAtStart: fc.boolean(),
  // [start, length] of hidden spells, ms after the start.
  spells: fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 20_000 })), { maxLength: 3 }),
});

type Options = typeof optionsArb extends fc.Arbitrary<infer O> ? O : never;
type Interruptions = typeof interruptionsArb extends fc.Arbitrary<infer I> ? I : never;

let caseNumber = 0;
const unhandled = watchUnhandled();
// Every listener on every EventTarget: the caller's signal, the loop's and each request's.
const listeners = trackListeners();
afterAll(() => {
  unhandled.stop();
  listeners.uninstall();
});

/** Runs one generated case and checks every invariant; throws (via expect) on the first broken one. */
async function checkCase(script: Answer[], options: Options, interruptions: Interruptions): Promise<void> {
  const clock = virtualClock();
  const page = new VirtualPage(clock);
  page.hidden = interruptions.hiddenAtStart;
  const server = scriptedFetch(clock, page, script);
  listeners.forget();
  const controller = new AbortController();
  const reason = new Error('aborted by the test');
  const events: PollEvent[] = [];
  const updates: unknown[] = [];

  // The world's own timers: abort and visibility flips. A page hidden at the start is shown at 30 s.
  if (interruptions.abortAt !== undefined) clock.setTimeout(() => controller.abort(reason), interruptions.abortAt);
  if (interruptions.hiddenAtStart) clock.setTimeout(() => page.set(false), 30_000);
  for (const [start, length] of interruptions.spells) {
    clock.setTimeout(() => page.set(true), start);
    clock.setTimeout(() => page.set(false), start + length);
  }

  const running = poll<{ done: boolean; n: number }>(`http://case-${caseNumber++}.test/job`, {
    fetch: server.fetch,
    env: virtualEnv(clock, page, () => options.random),
    signal: controller.signal,
    interval: options.interval,
    retries: options.retries,
    maxRetryAfter: options.maxRetryAfter,
    backoff: (n) => n * options.backoffStep,
    conditional: options.conditional,
    cooldown: options.cooldown,
    isDone: (data) => data.done,
    onUpdate: (data) => updates.push(data),
    onEvent: (event) => events.push(event),
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
    ...(interruptions.timeout === undefined ? {} : { timeout: interruptions.timeout }),
  });
  const settled = await runVirtual(clock, running);
  const model = modelRun(script, options.retries, options.requestTimeout);
  if (!settled) {
    // Hidden spells are finite, so a pending poll has nothing scheduled only when it waits on a body that
    // never finishes, with no requestTimeout to end it. The caller's signal still must.
    expect(model.outcome.type, 'poll neither settled nor scheduled anything').toBe('hang');
    expect(server.log.length).toBe(model.requests);
    controller.abort(reason);
    const ended = await runVirtual(clock, running);
    expect(ended && !ended.ok && ended.error, 'abort ends a stalled read').toBe(reason);
    expect([clock.pending('env'), page.listeners()]).toEqual([0, 0]);
    expect(listeners.live(), 'listeners left after the abort').toEqual([]);
    return;
  }
  const aborted = controller.signal.aborted;

  // After settling: nothing pending, nothing attached, and nothing sent ever again.
  expect(clock.pending('env'), 'timers left after settle').toBe(0);
  expect(listeners.live(), 'listeners left on any signal or EventTarget').toEqual([]);
  // Not vacuous: poll listens on the caller's signal at least.
  expect(listeners.added(), 'listeners added').toBeGreaterThan(0);
  expect(page.listeners(), 'visibility listeners left').toBe(0);
  const sentAtSettle = server.log.length;
  while (clock.step()) await flush();
  await flush();
  expect(server.log.length, 'requests after settle').toBe(sentAtSettle);
  expect(clock.pending('env')).toBe(0);

  // Never two requests in flight; none sent while hidden; If-None-Match carries the last ETag.
  expect(server.inFlight.max).toBeLessThanOrEqual(1);
  let lastEtag: string | null = null;
  for (const sent of server.log) {
    expect(sent.hiddenAtSend, `request at +${sent.at - T0} ms sent while hidden`).toBe(false);
    expect(sent.ifNoneMatch).toBe(options.conditional ? lastEtag : null);
    const delivered = sent.end === 'response' && verdict(sent.answer, options.requestTimeout) !== 'counted';
    if (delivered && (sent.answer.kind === 'running' || sent.answer.kind === 'done')) lastEtag = sent.answer.etag;
  }

  // Every wait between two requests, exactly, against the spec (the random is fixed). The total deadline
  // fits each wait (fitWait): one that would cross it is shortened to a last try, never below the server's
  // floor, or waits for the deadline, sending nothing more. Throttling (a 429, or a 503 with a Retry-After
  // of a second or more) stretches the interval after a success, and the floor of the wait after a 429:
  // times 2^(1 + random) from at least the interval, four intervals at most; each success takes 40 % off how
  // far it is above the interval, gone once that is no more than 40 % of it. A request that never reached
  // a server (refused) waits the interval. Every wait is whole ms. Pauses can only lengthen a wait, and the
  // page coming back can end the wait after a 2xx or 304 early; the checks say which they allow.
  const deadline = interruptions.timeout === undefined ? Infinity : T0 + interruptions.timeout;
  const cutShort = aborted || (!settled.ok && isTimeoutError(settled.error));
  // An answer the poll saw: the abort's and the deadline's timers, set before any request's, fire first at the same instant.
  const seen = (at: number): boolean => at < settled.at || (at === settled.at && !cutShort);
  const hiddenAt = (at: number): boolean => page.changes.filter((c) => c.at <= at).at(-1)?.hidden ?? interruptions.hiddenAtStart;
  const retryEvents = events.filter((e): e is Extract<PollEvent, { type: 'retry' }> => e.type === 'retry');
  const waitEvents = events.filter((e): e is Extract<PollEvent, { type: 'wait' }> => e.type === 'wait');
  let retryEvent = 0;
  let waitEvent = 0;
  let failures = 0;
  let slow = 0;
  let lastMade = false;
  /** The last failure seen since the last success: the cause of a TimeoutError. */
  let lastFailure: { status: number; timedOut: boolean } | undefined;
  /** When the last request's answer was known (or would have been, had the call not ended first). */
  let lastKnown = T0;
  const I = options.interval;
  const r = options.random;
  const cap = options.maxRetryAfter;
  for (let i = 0; i < server.log.length; i++) {
    const sent = server.log[i]!;
    const timedOut = options.requestTimeout !== undefined && (sent.answer.latency > options.requestTimeout || sent.answer.kind === 'stalled-body');
    // A stalled body fails when requestTimeout fires, not when its headers came.
    const knownAt = sent.answer.kind === 'stalled-body' && sent.answer.latency < options.requestTimeout! ? sent.at + options.requestTimeout! : (sent.endedAt ?? Infinity);
    lastKnown = knownAt;
    if (!seen(knownAt)) {
      expect(i, 'an answer the poll never saw, then another request').toBe(server.log.length - 1);
      break;
    }
    const next = server.log[i + 1];
    const v = verdict(sent.answer, options.requestTimeout);
    const answered = !(options.requestTimeout !== undefined && sent.answer.latency > options.requestTimeout) && sent.end === 'response';
    const status = answered && sent.answer.kind === 'retryable' ? sent.answer.status : 0;
    // The server's wait, uncapped: a valid Retry-After (0 and dates past included); null when none or garbage.
    const asked = status ? sent.retryAfterMs : null;
    const throttled = status === 429;
    if (throttled) slow = Math.min(4 * I, Math.max(slow, I) * 2 ** (1 + r));
    else if (v === 'ok' && slow) slow = (3 * slow + 2 * I) / 5 > 1.4 * I ? (3 * slow + 2 * I) / 5 : 0;
    const interval = status === 429 ? Math.max(I, slow) : I;
    // The wait the spec chooses after this answer, whole ms, and the part of it the server asked for.
    let planned: { delay: number; floor: number } | undefined;
    if (v === 'ok') {
      failures = 0;
      lastFailure = undefined;
      planned = { delay: Math.ceil(Math.max(I, slow)), floor: 0 };
    } else if (v === 'paced') {
      lastFailure = { status, timedOut };
      const delay = Math.ceil(Math.max(interval, spreadWait(asked!, r, cap)));
      planned = { delay, floor: Math.min(delay, asked!, cap) };
    } else if (v === 'counted') {
      failures += 1;
      lastFailure = { status, timedOut };
      if (failures <= options.retries) {
        const unreachable = sent.end === 'refused';
        // A Retry-After under a second (0, a date past) is counted, and waits at least a second plus the spread (within the cap).
        const delay = unreachable && I > 0 ? I : Math.ceil(Math.max(interval + failures * options.backoffStep, asked === null ? 0 : spreadWait(1000, r, cap)));
        planned = { delay, floor: 0 };
      }
    }
    // The end (done, an HttpError, a ParseError, given up) or a body that never ends: no wait, nothing after it.
    if (!planned) {
      expect(next, `a request after the end at request ${i}`).toBeUndefined();
      continue;
    }
    const fit = fitWait(planned.delay, planned.floor, Math.min(2 * (knownAt - sent.at), (interruptions.timeout ?? 0) / 10), knownAt, deadline, lastMade);
    if (fit.wait !== 'deadline') lastMade ||= fit.last;
    const what = `wait after request ${i} (${JSON.stringify(sent.answer)}): ${next ? next.at - knownAt : 'none'} ms, planned ${planned.delay}, fitted ${fit.wait}`;

    // The loop's own account of the wait: a `wait` event after a 2xx or 304, a `retry` event after a
    // failure, `paced` when the server paced it (not counted), with the delay chosen (when the deadline kept it).
    const kept = fit.wait === planned.delay;
    if (v === 'ok') {
      const event = waitEvents[waitEvent++];
      expect(event, `${what}: its wait event`).toBeDefined();
      if (kept) expect(event, what).toEqual({ type: 'wait', delay: planned.delay, at: knownAt + planned.delay });
    } else if (fit.wait === 'deadline') {
      // No retry fits before the deadline: none is announced (the poll gives up, `deadline`).
      expect(retryEvents[retryEvent], `${what}: a retry announced though none fitted before the deadline`).toBeUndefined();
    } else {
      const event = retryEvents[retryEvent++];
      expect(event, `${what}: its retry event`).toBeDefined();
      expect(event!.paced, `${what}: paced`).toBe(v === 'paced' ? true : undefined);
      expect(event, what).toMatchObject({ attempt: failures + (v === 'paced' ? 1 : 0), failures, retryAfter: v === 'paced' ? Math.min(asked!, cap) : null });
      if (kept) expect(event, what).toMatchObject({ delay: planned.delay, at: knownAt + planned.delay });
    }

    if (fit.wait === 'deadline') {
      // Nothing more is sent: the poll waits for the deadline. Only the page coming back ends the wait after a 2xx or 304 early.
      if (next) expect(v === 'ok' && page.changes.some((c) => !c.hidden && c.at >= knownAt && c.at <= next.at), `${what}: sent past the deadline's last try`).toBe(true);
      continue;
    }
    const wait = fit.wait;
    if (!next) {
      // A try was due before the deadline: only the abort, a pause or the deadline (at the same instant) may have stopped it.
      if (cutShort && !aborted && knownAt + wait < deadline && !page.hiddenDuring(knownAt, deadline, hiddenAt(knownAt))) {
        expect.fail(`${what}: the try due at +${knownAt + wait - T0} ms, before the deadline at +${deadline - T0} ms, was never sent`);
      }
      continue;
    }
    const gap = next.at - knownAt;
    const undisturbed = !page.hiddenDuring(sent.endedAt!, next.at, hiddenAt(sent.endedAt!));
    if (v === 'ok') {
      // An interval wait may end early when the page comes back.
      const woken = page.changes.some((c) => !c.hidden && c.at >= sent.endedAt! && c.at <= next.at);
      if (!woken) expect(gap, what).toBeGreaterThanOrEqual(wait);
    } else {
      expect(gap, what).toBeGreaterThanOrEqual(wait);
    }
    if (undisturbed) expect(gap, what).toBe(wait);
    if (v === 'paced') {
      // The server's wait is never undercut, not even by the deadline; one above the cap, by no more than its spread below the cap.
      expect(gap, `${what}: below the server's Retry-After ${asked} ms`).toBeGreaterThanOrEqual(asked! <= cap ? asked! : cap / (1 + SPREAD));
      // The cap is a hard maximum.
      if (undisturbed) expect(gap, `${what}: above maxRetryAfter`).toBeLessThanOrEqual(Math.max(Math.ceil(interval), cap));
    }
  }
  expect([retryEvent, waitEvent], 'one retry or wait event per wait, no more').toEqual([retryEvents.length, waitEvents.length]);
  // Each case polls its own origin: its own cooldowns are never waited twice, so no cooldown ever holds it.
  expect(events.filter((e) => e.type === 'cooldown')).toEqual([]);

  // The outcome: the spec's model, unless the abort or the deadline came first.
  expect(server.log.length).toBeLessThanOrEqual(model.requests);
  expect(settled.at, 'settled after the deadline').toBeLessThanOrEqual(deadline);
  const requestEvents = events.filter((e): e is Extract<PollEvent, { type: 'request' }> => e.type === 'request');
  // Each request's `attempt` is one more than the failures counted before it (attempt 1 after a success).
  expect(requestEvents.map((e) => e.attempt - 1), 'failures counted before each request').toEqual(model.failuresBefore.slice(0, requestEvents.length));
  if (aborted) {
    expect(settled.ok).toBe(false);
    expect(!settled.ok && settled.error, 'rejects with signal.reason').toBe(reason);
    expect(settled.at, 'settles the moment the signal aborts').toBe(T0 + interruptions.abortAt!);
  } else if (!settled.ok && isTimeoutError(settled.error)) {
    // A TimeoutError only when the deadline was due: the model's own end had not come by then, and poll
    // settled at the deadline itself, never before, with the last failure since the last success as its cause.
    expect(interruptions.timeout, 'a TimeoutError without a timeout').toBeDefined();
    const modelEnded = server.log.length === model.requests && model.outcome.type !== 'hang' && lastKnown < deadline;
    expect(modelEnded, `a TimeoutError, though the model's last answer came at +${lastKnown - T0} ms, before the deadline`).toBe(false);
    expect(settled.at, 'a TimeoutError before the deadline').toBe(deadline);
    expect((settled.error as Error).message).toBe(timedOutMessage('Polling', interruptions.timeout!));
    const cause = (settled.error as { cause?: unknown }).cause;
    if (lastFailure === undefined) expect(cause, 'a cause, though no failure came since the last success').toBeUndefined();
    else if (lastFailure.status) expect(isHttpError(cause) && cause.status, 'the last failed status as the cause').toBe(lastFailure.status);
    else if (lastFailure.timedOut) expect(isTimeoutError(cause), 'the last timed-out request as the cause').toBe(true);
    else expect(cause, 'the last network failure as the cause').toBeInstanceOf(TypeError);
  } else {
    expect(server.log.length, 'requests sent').toBe(model.requests);
    const outcome = model.outcome;
    if (outcome.type === 'done') {
      expect(settled.ok && settled.value).toEqual({ done: true, n: outcome.n });
    } else {
      expect(settled.ok, 'rejects').toBe(false);
      const error = !settled.ok ? (settled.error as { status?: number; attempts?: number }) : undefined;
      if (outcome.type === 'http') expect(isHttpError(error) && error.status).toBe(outcome.status);
      if (outcome.type === 'parse') expect(isParseError(error)).toBe(true);
      if (outcome.type === 'gave-up') {
        expect(isPollGaveUpError(error), `expected PollGaveUpError, got ${String(error)}`).toBe(true);
        expect([error?.attempts, error?.status]).toEqual([outcome.attempts, outcome.status]);
      }
    }
  }
  const parsedBodies = server.log.filter((s) => s.end === 'response' && ['ok', 'done'].includes(verdict(s.answer, options.requestTimeout)) && s.answer.kind !== 'not-modified');
  expect(updates.length, 'onUpdate once per parsed 2xx').toBe(parsedBodies.length);

  // No wait pollite asked for is negative, non-finite or a fraction of a ms (every other timer here is whole ms too).
  for (const ms of clock.delays) expect(Number.isInteger(ms) && ms >= 0, `timer of ${ms} ms`).toBe(true);
  for (const e of events) if ('delay' in e) expect(Number.isInteger(e.delay) && Number.isInteger(e.at), `${e.type} event of ${e.delay} ms at ${e.at}`).toBe(true);
  expect(unhandled.seen, 'unhandled rejections').toEqual([]);
}

describe('poll, model-based (virtual time, modelled server)', () => {
  it(`matches the spec's model on generated servers, no interruptions (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { maxLength: 12 }), optionsArb, async (script, options) =>
        checkCase(script, options, { abortAt: undefined, timeout: undefined, hiddenAtStart: false, spells: [] }),
      ),
      { numRuns: FC_RUNS },
    );
  }, 300_000);

  it(`keeps every invariant under generated abort, timeout and hide/show moments (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { maxLength: 12 }), optionsArb, interruptionsArb, checkCase),
      { numRuns: FC_RUNS },
    );
  }, 300_000);
});
