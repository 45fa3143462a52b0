// @vitest-environment jsdom
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isHttpError, isParseError, isPollGaveUpError, poll } from '../../src/index.js';
import type { VirtualClock } from '../../src/testing/index.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { answerArb, modelRun, scriptedFetch, type ModelOutcome } from './scripted-server.js';
import { runVirtual, T0, VirtualPage, virtualClock, type Settled } from './virtual-world.js';

// The default environment reads the real `document` and `window`: whatever
// the schedule of hide/show/focus/online events and aborts, poll leaves no
// listener on either once it settles.

// Every listener on every EventTarget: document, window, the caller's signal, the loop's and each request's.
const listeners = trackListeners();

function setHidden(hidden: boolean): void {
  Object.defineProperty(document, 'visibilityState', { value: hidden ? 'hidden' : 'visible', configurable: true });
  Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
}

const unhandled = watchUnhandled();
afterAll(() => {
  unhandled.stop();
  listeners.uninstall();
});
let caseNumber = 0;
/** The clock's timers and randomness (0.5) without its always-visible page: visibility and online stay pollite's defaults, the real document and window. */
const clockOnly = ({ visibility: _, ...clock }: ReturnType<VirtualClock['env']>) => clock;

/** How a run ended, in the model's terms. */
function outcomeOf(settled: Settled<{ done: boolean; n?: number }>, stop: Error): string {
  if (settled.ok) return `done ${settled.value.n}`;
  const error = settled.error as { status?: number; attempts?: number };
  if (error === stop) return 'stopped';
  if (isPollGaveUpError(error)) return `gave-up ${error.attempts} ${error.status}`;
  if (isHttpError(error)) return `http ${error.status}`;
  if (isParseError(error)) return 'parse';
  return `unexpected ${String(error)}`;
}

const expectedOutcome = (outcome: ModelOutcome): string => {
  switch (outcome.type) {
    case 'done':
      return `done ${outcome.n}`;
    case 'gave-up':
      return `gave-up ${outcome.attempts} ${outcome.status}`;
    case 'http':
      return `http ${outcome.status}`;
    default:
      return outcome.type;
  }
};

describe('poll with the real document and window (jsdom)', () => {
  it(`leaves no listener on document or window, whatever the schedule (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(answerArb, { maxLength: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 10_000 })), { maxLength: 3 }),
        fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined }),
        fc.constantFrom('focus', 'blur', 'online', 'offline'),
        async (script, spells, abortAt, windowEvent) => {
          setHidden(false);
          listeners.forget();
          const clock = virtualClock();
          const server = scriptedFetch(clock, new VirtualPage(clock), script);
          const controller = new AbortController();
          const stop = new Error('stop');
          const sentHidden: boolean[] = [];
          for (const [start, length] of spells) {
            clock.setTimeout(() => setHidden(true), start);
            clock.setTimeout(() => window.dispatchEvent(new Event(windowEvent)), start + 1);
            clock.setTimeout(() => setHidden(false), start + length);
          }
          if (abortAt !== undefined) clock.setTimeout(() => controller.abort(stop), abortAt);
          const running = poll<{ done: boolean }>(`http://doc-${caseNumber++}.test/job`, {
            fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
              sentHidden.push(document.visibilityState === 'hidden');
              return server.fetch(input, init);
            }) as typeof fetch,
            env: clockOnly(clock.env()),
            signal: controller.signal,
            interval: 100,
            retries: 2,
            requestTimeout: 150,
            backoff: (n) => n * 100,
            isDone: (data) => data.done,
          });
          const settled = await runVirtual(clock, running);
          // Hidden spells end and requestTimeout ends every request: poll always settles.
          expect(settled, 'poll neither settled nor scheduled anything').toBeDefined();
          // Ended by the abort, at that moment; otherwise as the spec's model says, after its requests.
          const aborted = controller.signal.aborted;
          const model = modelRun(script, 2, 150);
          expect(outcomeOf(settled!, stop), 'how poll ended').toBe(aborted ? 'stopped' : expectedOutcome(model.outcome));
          expect(aborted ? settled!.at - T0 : server.log.length, aborted ? 'settled at the abort' : 'requests sent').toBe(aborted ? abortAt : model.requests);
          expect(clock.pending('env'), 'timers left').toBe(0);
          expect(listeners.live(), 'listeners left on document, window or any signal').toEqual([]);
          expect(sentHidden.includes(true), 'a request went out while the document was hidden').toBe(false);
          expect(unhandled.seen).toEqual([]);
        },
      ),
      { numRuns: FC_RUNS },
    );
    // Not vacuous: poll listened to the document (and its signals).
    expect([...listeners.types].sort()).toEqual(expect.arrayContaining(['abort', 'visibilitychange']));
  }, 300_000);
});
