import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isHttpError, isParseError, isPollGaveUpError, isTimeoutError, poll, type PollEvent } from '../../src/index.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { answerArb, modelRun, pacedBy, scriptedFetch, subSecond, verdict, type Answer } from './scripted-server.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { flush, runVirtual, T0, VirtualPage, virtualClock, virtualEnv } from './virtual-world.js';

// Model-based: generated server scripts, options and interruptions drive the
// real `poll` in virtual time; every run is checked against the spec's model
// and the invariants of issue 9 (shrunk to a minimal case on failure).

const SPREAD = 0.2;

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

  // Every wait between two requests, against the spec. Throttling (a 429, or a 503 with a Retry-After the
  // client could read) stretches the interval after a success, and the floor of the wait after a 429:
  // times 2^(1 + random) from at least the interval, four intervals at most; a sixteenth of the interval
  // comes off with each success, and below the interval the stretch is gone.
  // Also, after every request (the last one included), when its answer was known and the wait poll
  // then planned, exactly (the random is fixed), not counting pauses, wakes and cooldowns; none after an end.
  const knownAt: number[] = [];
  const planned: Array<number | undefined> = [];
  let failures = 0;
  let slow = 0;
  const I = options.interval;
  for (let i = 0; i < server.log.length; i++) {
    const sent = server.log[i]!;
    // A stalled body fails when requestTimeout fires, not when its headers came.
    const failedAt = sent.answer.kind === 'stalled-body' && sent.answer.latency < options.requestTimeout! ? sent.at + options.requestTimeout! : (sent.endedAt ?? Infinity);
    knownAt.push(failedAt);
    planned.push(undefined);
    // The last request: only what poll planned after it.
    const next = server.log[i + 1] ?? { at: Infinity };
    const hasNext = i + 1 < server.log.length;
    const gap = next.at - failedAt;
    const hiddenAtEnd = page.changes.filter((c) => c.at <= sent.endedAt!).at(-1)?.hidden ?? interruptions.hiddenAtStart;
    const undisturbed = !page.hiddenDuring(sent.endedAt!, next.at, hiddenAtEnd) && !options.cooldown;
    const what = `wait after request ${i} (${JSON.stringify(sent.answer)}): ${gap} ms`;
    const v = verdict(sent.answer, options.requestTimeout);
    const answered = !(options.requestTimeout !== undefined && sent.answer.latency > options.requestTimeout) && sent.end === 'response';
    const status = answered && sent.answer.kind === 'retryable' ? sent.answer.status : 0;
    const readable = sent.answer.kind === 'retryable' && (sent.answer.retryAfter.form === 'seconds' || sent.answer.retryAfter.form === 'date');
    const throttled = status === 429 || (status === 503 && readable && pacedBy(sent.answer.kind === 'retryable' ? sent.answer.retryAfter : { form: 'none' }));
    if (throttled) slow = Math.min(4 * I, Math.max(slow, I) * 2 ** (1 + options.random));
    else if (v === 'ok' && slow) slow = slow - I / 16 > I ? slow - I / 16 : 0;
    const floorI = status === 429 ? Math.max(I, slow) : I;
    if (v === 'ok') {
      failures = 0;
      const interval = Math.max(I, slow);
      planned[i] = interval;
      if (!hasNext) continue;
      // An interval wait may end early when the page comes back; otherwise it is exactly the (stretched) interval.
      const woken = page.changes.some((c) => !c.hidden && c.at >= sent.endedAt! && c.at <= next.at);
      // Times near the epoch's 1.7e12 ms carry about 2e-4 ms of float error, so fractional waits compare to 1e-3.
      if (!woken) expect(gap, what).toBeGreaterThanOrEqual(interval - 1e-3);
      if (undisturbed) expect(gap, what).toBeCloseTo(interval, 2);
    } else if (v === 'paced') {
      const retryAfter = sent.retryAfterMs!;
      const floor = Math.max(floorI, Math.min(retryAfter, options.maxRetryAfter));
      planned[i] = Math.max(floorI, Math.min(retryAfter, options.maxRetryAfter) * (1 + SPREAD * options.random));
      if (!hasNext) continue;
      expect(gap, `${what}: below the server's Retry-After ${retryAfter} ms`).toBeGreaterThanOrEqual(floor - 1e-3);
      if (undisturbed) {
        // The cap applies to the floor; the spread above it keeps capped clients apart.
        const ceiling = Math.max(floorI, Math.min(options.maxRetryAfter, retryAfter) * (1 + SPREAD));
        expect(gap, `${what}: above Retry-After plus its spread`).toBeLessThanOrEqual(ceiling + 1e-3);
      }
    } else if (v === 'counted') {
      failures += 1;
      const backedOff = floorI + failures * options.backoffStep;
      // A Retry-After under a second (0, a date past) is counted, and waits at least a second plus the spread.
      const underSecond = sent.answer.kind === 'retryable' && subSecond(sent.answer.retryAfter) && !(options.requestTimeout !== undefined && sent.answer.latency > options.requestTimeout);
      if (failures <= options.retries) planned[i] = Math.max(backedOff, underSecond ? 1000 * (1 + SPREAD * options.random) : 0);
      if (!hasNext) continue;
      expect(gap, what).toBeGreaterThanOrEqual(Math.max(backedOff, underSecond ? 1000 : 0) - 1e-3);
      if (undisturbed && !underSecond) expect(gap, what).toBeCloseTo(backedOff, 2);
      if (undisturbed && underSecond) expect(gap, what).toBeLessThanOrEqual(Math.max(backedOff, 1000 * (1 + SPREAD)) + 1e-3);
    }
  }
  // The outcome: the spec's model, unless the abort or the deadline came first.
  const deadline = interruptions.timeout === undefined ? Infinity : T0 + interruptions.timeout;
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
    // A TimeoutError only when the deadline was due: the model's own end had not come by then, and
    // poll settled at the deadline itself, or when an answer came and the wait it planned after it
    // would have ended past the deadline.
    expect(interruptions.timeout, 'a TimeoutError without a timeout').toBeDefined();
    const last = server.log.length - 1;
    const lastKnown = last >= 0 ? knownAt[last]! : T0;
    const modelEnded = server.log.length === model.requests && model.outcome.type !== 'hang' && lastKnown < deadline;
    expect(modelEnded, `a TimeoutError, though the model's last answer came at +${lastKnown - T0} ms, before the deadline`).toBe(false);
    if (settled.at !== deadline) {
      const early = `a TimeoutError at +${settled.at - T0} ms, before the deadline at +${deadline - T0} ms`;
      expect((settled.error as Error).message, early).toMatch(/would wait past its deadline/);
      expect(Math.abs(settled.at - lastKnown), `${early}: not when the last answer came (+${lastKnown - T0} ms)`).toBeLessThan(1e-3);
      expect(lastKnown + planned[last]!, `${early}: the wait it planned (${planned[last]} ms) ends before the deadline`).toBeGreaterThan(deadline - 1e-3);
    }
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

  // No wait pollite asked for is negative or non-finite.
  for (const ms of clock.delays) expect(Number.isFinite(ms) && ms >= 0, `timer of ${ms} ms`).toBe(true);
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
