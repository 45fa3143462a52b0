import { afterEach, describe, expect, it } from 'vitest';
import { trackListeners, type ListenerTracker } from '../helpers/event-listeners.js';
import { sendJson, startServer } from '../helpers/server.js';

// The listener count of the property tests must see what it claims to see:
// every EventTarget, `once` and fired abort listeners gone, nothing else.

let tracker: ListenerTracker | undefined;
afterEach(() => tracker?.uninstall());

describe('trackListeners', () => {
  it('counts listeners on signals and targets it was never handed, until they are removed', () => {
    tracker = trackListeners();
    const target = new EventTarget();
    const signal = new AbortController().signal;
    const onEvent = (): void => undefined;
    const object = { handleEvent: (): void => undefined };
    target.addEventListener('ping', onEvent);
    target.addEventListener('ping', onEvent); // the same one again: still one
    target.addEventListener('ping', onEvent, { capture: true }); // another one
    target.addEventListener('ping', object);
    signal.addEventListener('abort', onEvent);
    expect(tracker.live()).toHaveLength(4);
    expect(tracker.live(signal)).toEqual([expect.stringMatching(/^'abort' on AbortSignal, added at .*event-listeners\.test\.ts/)]);
    target.removeEventListener('ping', onEvent);
    target.removeEventListener('ping', object);
    signal.removeEventListener('abort', onEvent);
    expect(tracker.live()).toEqual([expect.stringMatching(/^'ping' on EventTarget/)]);
    target.removeEventListener('ping', onEvent, true);
    expect(tracker.live()).toEqual([]);
    expect(tracker.added()).toBe(4);
    expect([...tracker.types].sort()).toEqual(['abort', 'ping']);
  });

  it('still delivers events, with the right this and argument, and drops once listeners when they fire', () => {
    tracker = trackListeners();
    const target = new EventTarget();
    const seen: Array<[unknown, string]> = [];
    target.addEventListener('ping', function (this: unknown, event: Event) {
      seen.push([this, event.type]);
    }, { once: true });
    const object = { handleEvent: (event: Event): void => void seen.push([object, event.type]) };
    target.addEventListener('ping', object);
    target.dispatchEvent(new Event('ping'));
    target.dispatchEvent(new Event('ping'));
    expect(seen).toEqual([[target, 'ping'], [object, 'ping'], [object, 'ping']]);
    expect(tracker.live()).toHaveLength(1);
  });

  it("drops a signal's abort listeners when it aborts, but not one added after: that one never fires", () => {
    tracker = trackListeners();
    const controller = new AbortController();
    let fired = 0;
    controller.signal.addEventListener('abort', () => (fired += 1));
    controller.abort();
    expect([fired, tracker.live().length]).toEqual([1, 0]);
    controller.signal.addEventListener('abort', () => (fired += 1));
    expect(tracker.live()).toEqual([expect.stringMatching(/^'abort' on AbortSignal \(aborted\)/)]);
  });

  it('follows the signal option of addEventListener', () => {
    tracker = trackListeners();
    const target = new EventTarget();
    const remover = new AbortController();
    target.addEventListener('ping', () => undefined, { signal: remover.signal });
    // The listener, and the one Node puts on the signal to remove it.
    expect(tracker.live()).toHaveLength(2);
    remover.abort();
    expect(tracker.live()).toEqual([]);
  });

  it('forgets what was live, yet translates later removals; uninstall puts the real methods back', () => {
    const original = EventTarget.prototype.addEventListener;
    tracker = trackListeners();
    expect(() => trackListeners()).toThrow(/already installed/);
    const target = new EventTarget();
    let calls = 0;
    const onEvent = (): void => void (calls += 1);
    target.addEventListener('ping', onEvent);
    tracker.forget();
    expect([tracker.live().length, tracker.added()]).toEqual([0, 0]);
    target.removeEventListener('ping', onEvent);
    target.dispatchEvent(new Event('ping'));
    expect(calls).toBe(0);
    tracker.uninstall();
    tracker = undefined;
    expect(EventTarget.prototype.addEventListener).toBe(original);
  });

  it("tells undici's listeners (a real fetch) from the code's, also the code's on a signal it handed to fetch", async () => {
    const server = await startServer((_req, res) => sendJson(res, 200, { ok: true }));
    try {
      tracker = trackListeners();
      const controller = new AbortController();
      const onAbort = (): void => undefined;
      const response = await fetch(server.url, { signal: controller.signal });
      await response.arrayBuffer();
      controller.signal.addEventListener('abort', onAbort);
      // undici: one following the caller's signal from its Request, one on the Request's own signal.
      expect(tracker.added('fetch')).toBe(2);
      expect(tracker.live(controller.signal, 'fetch')).toEqual([expect.stringMatching(/^'abort' on AbortSignal, added by fetch at .*event-listeners\.test\.ts/)]);
      expect(tracker.live(undefined, 'code')).toEqual([expect.stringMatching(/^'abort' on AbortSignal, added at .*event-listeners\.test\.ts/)]);
      expect(tracker.added('code')).toBe(1);
      expect(tracker.added()).toBe(3);
      controller.signal.removeEventListener('abort', onAbort);
      expect(tracker.live(undefined, 'code')).toEqual([]);
      expect(tracker.live()).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
