// @vitest-environment jsdom
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { poll } from '../../src/index.js';
import type { VirtualClock } from '../../src/testing/index.js';
import { FC_RUNS, watchUnhandled } from './runs.js';
import { answerArb, scriptedFetch } from './scripted-server.js';
import { countingController, runVirtual, T0, VirtualPage, virtualClock } from './virtual-world.js';

// The default environment reads the real `document` and `window`: whatever
// the schedule of hide/show/focus/online events and aborts, poll leaves no
// listener on either once it settles.

const live = new Map<EventTarget, Set<string>>();
/** Every event type poll ever listened to, so the test knows it was not vacuous. */
const seen = new Set<string>();
function countListeners(target: EventTarget): void {
  const add = target.addEventListener.bind(target);
  const remove = target.removeEventListener.bind(target);
  const keys = new Set<string>();
  live.set(target, keys);
  const ids = new WeakMap<object, number>();
  let next = 0;
  const key = (type: string, listener: unknown): string => {
    if (listener && typeof listener === 'object' || typeof listener === 'function') {
      if (!ids.has(listener as object)) ids.set(listener as object, next++);
      return `${type}:${ids.get(listener as object)}`;
    }
    return `${type}:?`;
  };
  target.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) => {
    keys.add(key(type, listener));
    seen.add(type);
    add(type, listener, options);
  }) as EventTarget['addEventListener'];
  target.removeEventListener = ((type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) => {
    keys.delete(key(type, listener));
    remove(type, listener, options);
  }) as EventTarget['removeEventListener'];
}
countListeners(document);
countListeners(window);
const listenerCount = (): number => [...live.values()].reduce((sum, keys) => sum + keys.size, 0);

function setHidden(hidden: boolean): void {
  Object.defineProperty(document, 'visibilityState', { value: hidden ? 'hidden' : 'visible', configurable: true });
  Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
}

const unhandled = watchUnhandled();
afterAll(() => unhandled.stop());
let caseNumber = 0;
/** The clock's timers and randomness (0.5) without its always-visible page: visibility and online stay pollite's defaults, the real document and window. */
const clockOnly = ({ visibility: _, ...clock }: ReturnType<VirtualClock['env']>) => clock;

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
          const clock = virtualClock();
          const server = scriptedFetch(clock, new VirtualPage(clock), script);
          const { controller, listeners } = countingController();
          const sentHidden: boolean[] = [];
          for (const [start, length] of spells) {
            clock.setTimeout(() => setHidden(true), start);
            clock.setTimeout(() => window.dispatchEvent(new Event(windowEvent)), start + 1);
            clock.setTimeout(() => setHidden(false), start + length);
          }
          if (abortAt !== undefined) clock.setTimeout(() => controller.abort(new Error('stop')), abortAt);
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
          if (!settled) {
            controller.abort(new Error('stop'));
            await runVirtual(clock, running);
          }
          expect(clock.pending('env'), 'timers left').toBe(0);
          expect(listeners(), 'signal listeners left').toBe(0);
          expect(listenerCount(), `listeners left on document/window: ${[...live.values()].map((k) => [...k]).flat().join(', ')}`).toBe(0);
          expect(sentHidden.includes(true), 'a request went out while the document was hidden').toBe(false);
          expect(unhandled.seen).toEqual([]);
          expect(clock.now()).toBeGreaterThanOrEqual(T0);
        },
      ),
      { numRuns: FC_RUNS },
    );
    expect([...seen].sort()).toEqual(expect.arrayContaining(['visibilitychange']));
  }, 300_000);
});
