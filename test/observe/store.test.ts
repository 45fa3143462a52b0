import { describe, expect, it, vi } from 'vitest';
import { createStore } from '../../src/observe/store.js';

describe('createStore: the one subscribable value', () => {
  it('keeps the same snapshot until set, and tells listeners only of real changes', () => {
    const first = { n: 1 };
    const store = createStore(first);
    const listener = vi.fn();
    store.subscribe(listener);
    expect(store.getSnapshot()).toBe(store.getSnapshot());
    store.set(first);
    expect(listener).not.toHaveBeenCalled();
    store.set({ n: 2 });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot()).toEqual({ n: 2 });
  });

  it('keeps the old object when the new one has the same fields, so a snapshot stays referentially stable', () => {
    const first = { status: 'polling', attempt: 1 };
    const store = createStore(first);
    const listener = vi.fn();
    store.subscribe(listener);
    store.set({ status: 'polling', attempt: 1 });
    expect(store.getSnapshot()).toBe(first);
    expect(listener).not.toHaveBeenCalled();
    store.set({ status: 'polling', attempt: 2 });
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('counts the same function subscribed twice as two subscriptions, and says when it is watched', () => {
    const watched = vi.fn();
    const store = createStore(0, watched);
    const listener = vi.fn();
    const a = store.subscribe(listener);
    const b = store.subscribe(listener);
    expect(watched.mock.calls).toEqual([[true]]);
    a();
    a();
    store.set(1);
    expect(listener).toHaveBeenCalledTimes(1);
    b();
    expect(watched.mock.calls).toEqual([[true], [false]]);
  });

  it('a listener that throws neither stops the others nor the caller of set', async () => {
    const store = createStore(0);
    const errors: unknown[] = [];
    const onError = (error: unknown): void => void errors.push(error);
    process.on('uncaughtException', onError);
    const after = vi.fn();
    store.subscribe(() => {
      throw new Error('boom');
    });
    store.subscribe(after);
    expect(() => store.set(1)).not.toThrow();
    expect(after).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('uncaughtException', onError);
    expect(errors).toEqual([new Error('boom')]);
  });
});
