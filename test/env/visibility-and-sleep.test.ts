import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { sleep, whenVisible } from '../../src/kit/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

/** A stand-in `document`: an EventTarget with a settable visibilityState. */
class FakeDocument extends EventTarget {
  visibilityState: 'visible' | 'hidden' = 'visible';
  get hidden(): boolean {
    return this.visibilityState === 'hidden';
  }
  set(state: 'visible' | 'hidden'): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

let server: TestServer | undefined;
let doc: FakeDocument;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
  delete (globalThis as { document?: unknown }).document;
});
const install = (): FakeDocument => {
  doc = new FakeDocument();
  (globalThis as { document?: unknown }).document = doc;
  return doc;
};

describe('sleep', () => {
  it('resolves after the delay and leaves no listener', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let done = false;
    const promise = sleep(1000, controller.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await promise;
    expect(done).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with the reason on abort and clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const promise = sleep(1000, controller.signal);
    controller.abort('why');
    await expect(promise).rejects.toBe('why');
    expect(vi.getTimerCount()).toBe(0);
    await expect(sleep(5, AbortSignal.abort('early'))).rejects.toBe('early');
  });

  it('chains timers past the 2^31-1 ms limit instead of firing early', async () => {
    vi.useFakeTimers();
    let done = false;
    void sleep(2 ** 31 + 1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1001);
    expect(done).toBe(true);
  });

  it('refuses a non-number', async () => {
    await expect(sleep('5' as never)).rejects.toThrow(/`ms`/);
  });
});

describe('whenVisible', () => {
  it('resolves at once without a document or when visible', async () => {
    await expect(whenVisible()).resolves.toBeUndefined();
    install();
    await expect(whenVisible()).resolves.toBeUndefined();
  });

  it('waits for visibilitychange to visible, then removes its listeners', async () => {
    install().set('hidden');
    const controller = new AbortController();
    let resolved = false;
    const promise = whenVisible(controller.signal).then(() => (resolved = true));
    doc.dispatchEvent(new Event('visibilitychange'));
    await Promise.resolve();
    expect(resolved).toBe(false);
    doc.set('visible');
    await promise;
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects on abort and removes its listeners', async () => {
    install().set('hidden');
    const controller = new AbortController();
    const promise = whenVisible(controller.signal);
    controller.abort('gone');
    await expect(promise).rejects.toBe('gone');
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
  });
});

describe('poll in a hidden document', () => {
  it('sends nothing while hidden and polls at once when visible', async () => {
    install().set('hidden');
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'done' })]));
    const events: PollEvent[] = [];
    const promise = poll<{ status: string }>(server.url, { isDone: (j) => j.status === 'done', onEvent: (e) => events.push(e) });
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requests).toHaveLength(0);
    expect(events).toEqual([{ type: 'pause', reason: 'hidden' }]);
    doc.set('visible');
    await promise;
    expect(server.requests).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['pause', 'resume', 'request', 'response']);
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
  });

  it('does not pause with pauseWhenHidden: false', async () => {
    install().set('hidden');
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'done' })]));
    await poll<{ status: string }>(server.url, { isDone: () => true, pauseWhenHidden: false });
    expect(server.requests).toHaveLength(1);
  });

  it('aborting while hidden settles at once and leaves no listener', async () => {
    install().set('hidden');
    server = await startServer(scripted([(res) => sendJson(res, 200, {})]));
    const controller = new AbortController();
    const promise = poll(server.url, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort(new Error('bye'));
    await expect(promise).rejects.toThrow('bye');
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });

  it('a deadline passing while hidden rejects with TimeoutError', async () => {
    install().set('hidden');
    server = await startServer(scripted([(res) => sendJson(res, 200, {})]));
    await expect(poll(server.url, { timeout: 50 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(getEventListeners(doc, 'visibilitychange')).toHaveLength(0);
  });
});
