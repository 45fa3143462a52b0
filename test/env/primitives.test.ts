import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realClock } from '../../src/env/clock.js';
import { deadline } from '../../src/env/deadline.js';
import { onAbort } from '../../src/env/on-abort.js';
import { documentVisibility } from '../../src/env/visibility.js';
import { wait, type Wake } from '../../src/env/wait.js';
import { poll, type PollEvent } from '../../src/index.js';
import { sleep, whenVisible } from '../../src/kit/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { recordingEnv } from '../helpers/env.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// The edges of the one wait, the one deadline and the one abort listener that mutation testing
// found untested.

let server: TestServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  delete (globalThis as { document?: unknown }).document;
  await server?.close();
  server = undefined;
});

/** Lets promise callbacks (and a settle's chain of them) run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A source that notifies from a snapshot of its listeners, as EventTarget does, and counts the unsubscribes. */
function countingSource() {
  const listeners = new Set<() => void>();
  let unsubscribes = 0;
  return {
    notify: () => [...listeners].forEach((listener) => listener()),
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => {
        unsubscribes += 1;
        listeners.delete(listener);
      };
    },
    listeners: () => listeners.size,
    unsubscribes: () => unsubscribes,
  };
}

describe('deadline', () => {
  it('follows any parent it is given, when others are missing and there is no timeout', async () => {
    const controller = new AbortController();
    const bound = deadline(realClock, undefined, () => new Error('unused'), undefined, controller.signal);
    expect(bound.signal).toBeInstanceOf(AbortSignal);
    expect(bound.at).toBe(Infinity);
    controller.abort('stop');
    expect([bound.signal!.aborted, bound.signal!.reason, bound.passed()]).toEqual([true, 'stop', false]);
    bound.stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('onAbort: one listener per signal', () => {
  it('keeps the shared listener while another subscription remains, and calls that one on abort', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const stopA = onAbort(controller.signal, () => calls.push('a'));
    onAbort(controller.signal, () => calls.push('b'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stopA();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(calls).toEqual(['b']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('removes its listener itself when it fires, for a signal wrapper that counts listeners by its calls', () => {
    const target = new EventTarget();
    const live = new Map<string, number>();
    const counting = {
      aborted: false,
      reason: undefined as unknown,
      addEventListener(type: string, listener: EventListener, options?: AddEventListenerOptions) {
        live.set(type, (live.get(type) ?? 0) + 1);
        target.addEventListener(type, listener, options);
      },
      removeEventListener(type: string, listener: EventListener) {
        live.set(type, (live.get(type) ?? 0) - 1);
        target.removeEventListener(type, listener);
      },
    };
    const calls: string[] = [];
    onAbort(counting as unknown as AbortSignal, () => calls.push('aborted'));
    expect(live.get('abort')).toBe(1);
    counting.aborted = true;
    target.dispatchEvent(new Event('abort'));
    expect(calls).toEqual(['aborted']);
    expect([...live]).toEqual([['abort', 0]]);
  });

  it('a late unsubscribe of a fired subscription leaves the one made after the abort alone', () => {
    const controller = new AbortController();
    const stopEarly = onAbort(controller.signal, () => undefined);
    controller.abort();
    // Subscribed to a signal that has already aborted: it attaches a listener of its own, removed by its unsubscribe.
    const stopLate = onAbort(controller.signal, () => undefined);
    stopEarly();
    onAbort(controller.signal, () => undefined);
    // Still one fan, so one listener, not a second one for a fan the late unsubscribe forgot.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stopLate();
  });
});

describe('wait', () => {
  it('cleans up a wake that is ready as it subscribes: no timer, no subscription left', async () => {
    const clock = new VirtualClock({ start: 0 });
    const source = countingSource();
    const ready: Wake<'now'> = {
      reason: 'now',
      subscribe: (listener) => {
        const stop = source.subscribe(listener);
        listener();
        return stop;
      },
      ready: () => true,
    };
    expect(await wait(clock.env(), 60_000, undefined, [ready])).toBe('now');
    expect([clock.pending('env'), source.listeners(), source.unsubscribes()]).toEqual([0, 0, 1]);
  });

  it('unsubscribes each wake once, however many notifications were already under way', async () => {
    const clock = new VirtualClock({ start: 0 });
    const source = countingSource();
    const wake = (reason: string): Wake => ({ reason, subscribe: source.subscribe, ready: () => true });
    const woke = wait(clock.env(), 60_000, undefined, [wake('first'), wake('second')]);
    source.notify();
    expect(await woke).toBe('first');
    expect([clock.pending('env'), source.listeners(), source.unsubscribes()]).toEqual([0, 0, 2]);
  });

  it('arms no timer for a wait without end', async () => {
    const clock = new VirtualClock({ start: 0 });
    const source = countingSource();
    let ready = false;
    const woke = wait(clock.env(), Infinity, undefined, [{ reason: 'visible', subscribe: source.subscribe, ready: () => ready }]);
    expect(clock.pending('env')).toBe(0);
    ready = true;
    source.notify();
    expect(await woke).toBe('visible');
  });

  it('with nothing to end it early, waits out its time on one timer and resolves with undefined', async () => {
    const clock = new VirtualClock({ start: 0, recordDelays: true });
    let result: unknown = 'pending';
    void wait(clock.env(), 1500).then((value) => (result = value));
    expect([clock.pending('env'), clock.delays]).toEqual([1, [1500]]);
    await clock.advance(1499);
    expect(result).toBe('pending');
    await clock.advance(1);
    expect([result, clock.pending('env')]).toEqual([undefined, 0]);
  });

  it('with nothing to end it early and no end, arms no timer and never resolves', async () => {
    const clock = new VirtualClock({ start: 0, recordDelays: true });
    let settled = false;
    void wait(clock.env(), Infinity).then(() => (settled = true));
    expect([clock.pending('env'), clock.delays]).toEqual([0, []]);
    await clock.advance(2 ** 40);
    expect(settled).toBe(false);
  });

  it('with nothing to end it early, chains timers past setTimeout\'s limit and never fires early', async () => {
    const clock = new VirtualClock({ start: 0, recordDelays: true });
    let settled = false;
    void wait(clock.env(), 2 ** 31 + 5).then(() => (settled = true));
    await clock.advance(2 ** 31 + 4);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect([settled, clock.delays, clock.pending('env')]).toEqual([true, [2 ** 31 - 1, 6], 0]);
  });

  it('a paused poll holds no timer', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 200, {})]));
    const { clock, env } = recordingEnv({ auto: false });
    const controller = new AbortController();
    const events: PollEvent[] = [];
    const paused = poll(server.url, { signal: controller.signal, env: { ...env, visibility: { hidden: () => true, subscribe: () => () => undefined } }, onEvent: (e) => events.push(e) });
    await flush();
    expect(events).toEqual([{ type: 'pause', reason: 'hidden' }]);
    expect(clock.pending('env')).toBe(0);
    controller.abort(new Error('bye'));
    await expect(paused).rejects.toThrow('bye');
  });
});

describe('startTimer past 2^31-1 ms', () => {
  it('cancels the chained timer too: an aborted long sleep leaves no timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const slept = sleep(2 ** 31 + 1000, controller.signal);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort('enough');
    await expect(slept).rejects.toBe('enough');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the DOM visibility source', () => {
  class Doc extends EventTarget {
    constructor(
      readonly visibilityState?: string,
      readonly hidden?: boolean,
    ) {
      super();
    }
  }
  const install = (doc: unknown): void => void ((globalThis as { document?: unknown }).document = doc);

  it('is hidden when either visibilityState or hidden says so', () => {
    install(new Doc('hidden', undefined));
    expect(documentVisibility.hidden()).toBe(true);
    install(new Doc(undefined, true));
    expect(documentVisibility.hidden()).toBe(true);
    install(new Doc('visible', false));
    expect(documentVisibility.hidden()).toBe(false);
    install(new Doc(undefined, undefined));
    expect(documentVisibility.hidden()).toBe(false);
  });

  it('ignores a `document` that is no event target (a server-side stub): never hidden, nothing subscribed', async () => {
    install({ visibilityState: 'hidden', hidden: true });
    expect(documentVisibility.hidden()).toBe(false);
    const stop = documentVisibility.subscribe(() => undefined);
    stop();
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'done' })]));
    expect(await poll(server.url, { isDone: () => true, env: recordingEnv().env })).toEqual({ status: 'done' });
  });
});

describe('whenVisible', () => {
  it('ignores a visibilitychange that leaves the page hidden, and resolves on the one that shows it', async () => {
    const doc = new (class extends EventTarget {
      visibilityState = 'hidden';
    })();
    install(doc);
    let resolved = false;
    const visible = whenVisible().then(() => (resolved = true));
    doc.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(resolved).toBe(false);
    doc.visibilityState = 'visible';
    doc.dispatchEvent(new Event('visibilitychange'));
    await visible;
    expect(resolved).toBe(true);
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
  });

  function install(doc: unknown): void {
    (globalThis as { document?: unknown }).document = doc;
  }
});
