import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { clearCooldowns, pauseWhenBlurred } from '../../src/cooperate/index.js';
import { navigatorOnline } from '../../src/env/online.js';
import { documentFocus } from '../../src/env/focus.js';
import { documentVisibility } from '../../src/env/visibility.js';
import { poll, type PollEvent } from '../../src/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { switchable, until, virtualClock } from './helpers/virtual-clock.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearCooldowns();
});

interface Job {
  status: string;
}
const running = (res: Parameters<typeof sendJson>[0]): void => sendJson(res, 200, { status: 'running' });
const done = (res: Parameters<typeof sendJson>[0]): void => sendJson(res, 200, { status: 'done' });
const isDone = (job: Job): boolean => job.status === 'done';

/** An environment whose visibility and connection the test sets, and a focus source for `pauseWhenBlurred`. */
function world() {
  const clock = virtualClock({ random: 0 });
  const hidden = switchable(false);
  const offline = switchable(false);
  const blurred = switchable(false);
  const env = {
    ...clock.env(),
    visibility: { hidden: hidden.is, subscribe: hidden.subscribe },
    online: { offline: offline.is, subscribe: offline.subscribe },
  };
  const focus = { blurred: blurred.is, subscribe: blurred.subscribe };
  const listeners = (): number => hidden.listeners() + offline.listeners() + blurred.listeners();
  return { clock, hidden, offline, blurred, env, focus, listeners };
}

describe('pauseWhenOffline', () => {
  it('sends nothing while offline, and polls at once on online', async () => {
    server = await startServer(scripted([done]));
    const w = world();
    w.offline.set(true);
    const events: PollEvent[] = [];
    const promise = poll<Job>(server.url, { isDone, env: w.env, onEvent: (e) => events.push(e) });
    await until(() => w.offline.listeners() === 1);
    expect(server.requests).toHaveLength(0);
    w.offline.set(false);
    await promise;
    expect(events.map((e) => (e.type === 'pause' ? `pause:${e.reason}` : e.type))).toEqual(['pause:offline', 'resume', 'request', 'response']);
    expect(w.listeners()).toBe(0);
  });

  it('the online event ends an interval wait at once', async () => {
    server = await startServer(scripted([running, done]));
    const w = world();
    const events: PollEvent[] = [];
    const promise = poll<Job>(server.url, { isDone, interval: 60_000, env: w.env, onEvent: (e) => events.push(e) });
    await until(() => w.clock.pending() === 1);
    w.offline.set(true); // going offline does not wake it
    expect(server.requests).toHaveLength(1);
    w.offline.set(false);
    await promise;
    expect(server.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'wake')).toEqual([{ type: 'wake', reason: 'online' }]);
    expect(w.clock.pending()).toBe(0);
    expect(w.listeners()).toBe(0);
  });

  it('the online event ends a backoff wait after a network error', async () => {
    let url = '';
    let calls = 0;
    const fetchOnce: typeof fetch = (input, init) => (calls++ === 0 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
    server = await startServer(scripted([done]));
    url = server.url;
    const w = world();
    const promise = poll<Job>(url, { isDone, fetch: fetchOnce, backoff: () => 60_000, env: w.env });
    await until(() => w.clock.pending() === 1);
    w.offline.set(true);
    w.offline.set(false);
    await promise;
    expect(server.requests).toHaveLength(1);
  });

  it('with pauseWhenOffline: false it ignores the connection', async () => {
    server = await startServer(scripted([done]));
    const w = world();
    w.offline.set(true);
    await poll<Job>(server.url, { isDone, env: w.env, pauseWhenOffline: false });
    expect(server.requests).toHaveLength(1);
  });
});

describe('wake on visible', () => {
  it('a page that becomes visible during an interval wait polls at once', async () => {
    server = await startServer(scripted([running, done]));
    const w = world();
    const events: PollEvent[] = [];
    const promise = poll<Job>(server.url, { isDone, interval: 60_000, env: w.env, onEvent: (e) => events.push(e) });
    await until(() => w.clock.pending() === 1);
    w.hidden.set(true);
    w.hidden.set(false);
    await promise;
    expect(events.filter((e) => e.type === 'wake')).toEqual([{ type: 'wake', reason: 'visible' }]);
    expect(w.listeners()).toBe(0);
  });

  it('a Retry-After wait is still honoured when the page becomes visible', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 503, {}, { 'retry-after': '30' }), done]));
    const w = world();
    const promise = poll<Job>(server.url, { isDone, env: w.env });
    await until(() => w.clock.pending() === 1);
    w.hidden.set(true);
    w.hidden.set(false);
    w.offline.set(true);
    w.offline.set(false);
    await w.clock.advance(29_999);
    expect(server.requests).toHaveLength(1);
    await w.clock.advance(1);
    await promise;
    expect(server.requests).toHaveLength(2);
  });
});

describe('pauseWhenBlurred()', () => {
  it('is off unless passed in use', async () => {
    server = await startServer(scripted([done]));
    const w = world();
    w.blurred.set(true);
    await poll<Job>(server.url, { isDone, env: w.env });
    expect(server.requests).toHaveLength(1);
  });

  it('pauses while blurred, polls when focused, and wakes an interval wait on focus', async () => {
    server = await startServer(scripted([running, done]));
    const w = world();
    w.blurred.set(true);
    const events: PollEvent[] = [];
    const promise = poll<Job>(server.url, { isDone, interval: 60_000, use: [pauseWhenBlurred(w.focus)], env: w.env, onEvent: (e) => events.push(e) });
    await until(() => w.blurred.listeners() === 1);
    expect(server.requests).toHaveLength(0);
    w.blurred.set(false);
    await until(() => w.clock.pending() === 1);
    w.blurred.set(true);
    w.blurred.set(false);
    await promise;
    expect(events.filter((e) => e.type === 'pause' || e.type === 'wake' || e.type === 'resume')).toEqual([
      { type: 'pause', reason: 'blurred' },
      { type: 'resume' },
      { type: 'wake', reason: 'focus' },
    ]);
    expect(w.listeners()).toBe(0);
  });

  it('names every reason in turn when several pauses overlap', async () => {
    server = await startServer(scripted([done]));
    const w = world();
    w.hidden.set(true);
    w.offline.set(true);
    const events: PollEvent[] = [];
    const promise = poll<Job>(server.url, { isDone, env: w.env, onEvent: (e) => events.push(e) });
    await until(() => w.hidden.listeners() === 1);
    w.hidden.set(false);
    await until(() => w.offline.listeners() === 1);
    w.offline.set(false);
    await promise;
    expect(events.map((e) => (e.type === 'pause' ? `pause:${e.reason}` : e.type))).toEqual(['pause:hidden', 'pause:offline', 'resume', 'request', 'response']);
  });
});

describe('default sources', () => {
  it('read navigator.onLine and document.hasFocus, listening to the window lazily', () => {
    const target = new EventTarget();
    const g = globalThis as unknown as Record<string, unknown>;
    const saved = { navigator: Object.getOwnPropertyDescriptor(globalThis, 'navigator'), document: g.document };
    Object.defineProperty(globalThis, 'navigator', { value: { onLine: false }, configurable: true });
    g.document = { hasFocus: () => false };
    g.addEventListener = target.addEventListener.bind(target);
    g.removeEventListener = target.removeEventListener.bind(target);
    try {
      expect(navigatorOnline.offline()).toBe(true);
      expect(documentFocus.blurred()).toBe(true);
      let calls = 0;
      const off = navigatorOnline.subscribe(() => calls++);
      const unfocus = documentFocus.subscribe(() => calls++);
      expect(getEventListeners(target, 'online')).toHaveLength(1);
      target.dispatchEvent(new Event('online'));
      target.dispatchEvent(new Event('blur'));
      off();
      unfocus();
      target.dispatchEvent(new Event('offline'));
      expect(calls).toBe(2);
      expect(getEventListeners(target, 'online')).toHaveLength(0);
      expect(getEventListeners(target, 'focus')).toHaveLength(0);
    } finally {
      delete g.addEventListener;
      delete g.removeEventListener;
      if (saved.navigator) Object.defineProperty(globalThis, 'navigator', saved.navigator);
      else delete g.navigator;
      if (saved.document === undefined) delete g.document;
      else g.document = saved.document;
    }
    expect(navigatorOnline.offline()).toBe(false); // Node: no navigator.onLine, never offline
    expect(documentFocus.blurred()).toBe(false);
  });

  it('outside a browser have nothing to watch: a poll attaches no pause for them and never asks them, so its waits stay bare timers', async () => {
    server = await startServer(scripted([running, running, done]));
    const clock = virtualClock({ random: 0 });
    const asked: string[] = [];
    // The real default sources (no document, no window here), counted.
    const env = {
      ...clock.env(),
      visibility: { hidden: () => (asked.push('hidden'), documentVisibility.hidden()), subscribe: documentVisibility.subscribe },
      online: { offline: () => (asked.push('offline'), navigatorOnline.offline()), subscribe: navigatorOnline.subscribe },
    };
    const focus = { blurred: () => (asked.push('blurred'), documentFocus.blurred()), subscribe: documentFocus.subscribe };
    const promise = poll<Job>(server.url, { isDone, interval: 1000, env, use: [pauseWhenBlurred(focus)] });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    await clock.advance(1000);
    await until(() => server!.requests.length === 2 && clock.pending() === 1);
    await clock.advance(1000);
    await expect(promise).resolves.toEqual({ status: 'done' });
    expect(server.requests).toHaveLength(3);
    expect(asked).toEqual([]);
  });

  it('a source that can notify is still asked before every request', async () => {
    server = await startServer(scripted([running, done]));
    const clock = virtualClock({ random: 0 });
    const hidden = switchable(false);
    let asked = 0;
    const env = { ...clock.env(), visibility: { hidden: () => (asked++, hidden.is()), subscribe: hidden.subscribe } };
    const promise = poll<Job>(server.url, { isDone, interval: 1000, env });
    await until(() => server!.requests.length === 1 && clock.pending() === 1);
    await clock.advance(1000);
    await promise;
    expect(asked).toBe(2);
    expect(hidden.listeners()).toBe(0);
  });
});
