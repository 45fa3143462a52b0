import { describe, expect, it } from 'vitest';
import { createCountdown } from '../../src/observe/index.js';
import { createStore } from '../../src/observe/store.js';
import { manualClock } from './helpers.js';

/** A countable source whose `nextAttemptAt` the test sets. */
function source() {
  const store = createStore<{ nextAttemptAt: number | undefined }>({ nextAttemptAt: undefined });
  return { ...store, waitUntil: (at: number | undefined) => store.set({ nextAttemptAt: at }) };
}

describe('createCountdown, in the injected clock', () => {
  it('is undefined without a wait, and holds no timer then', () => {
    const clock = manualClock();
    const state = source();
    const countdown = createCountdown(state, clock);
    const seen: Array<number | undefined> = [];
    countdown.subscribe(() => seen.push(countdown.getSnapshot()));
    expect(countdown.getSnapshot()).toBeUndefined();
    expect(clock.pending()).toBe(0);
    clock.advance(10_000);
    expect(seen).toEqual([]);
  });

  it('a 507 ms wait shows 1 s, never 2, then 0 when it is due', () => {
    const clock = manualClock();
    const state = source();
    const countdown = createCountdown(state, clock);
    const seen: Array<number | undefined> = [];
    countdown.subscribe(() => seen.push(countdown.getSnapshot()));
    state.waitUntil(clock.now() + 507);
    expect(countdown.getSnapshot()).toBe(1);
    clock.advance(506);
    expect(countdown.getSnapshot()).toBe(1);
    clock.advance(1);
    expect(countdown.getSnapshot()).toBe(0);
    expect(seen).toEqual([1, 0]);
    expect(clock.pending()).toBe(0);
  });

  it('ticks exactly when the whole seconds left change, with one timer at a time', () => {
    const clock = manualClock();
    const state = source();
    const countdown = createCountdown(state, clock);
    const seen: Array<[number, number | undefined]> = [];
    const start = clock.now();
    countdown.subscribe(() => seen.push([clock.now() - start, countdown.getSnapshot()]));
    state.waitUntil(start + 2500);
    expect(clock.pending()).toBe(1);
    for (let ms = 0; ms < 3000; ms += 100) {
      clock.advance(100);
      // Never more than the wait left, rounded up to the second.
      expect(countdown.getSnapshot()).toBe(Math.max(0, Math.ceil((start + 2500 - clock.now()) / 1000)));
      expect(clock.pending()).toBeLessThanOrEqual(1);
    }
    expect(seen).toEqual([
      [0, 3],
      [500, 2],
      [1500, 1],
      [2500, 0],
    ]);
    expect(clock.delays).toEqual([500, 1000, 1000]);
  });

  it('stops its timer when the wait ends early, and follows a new wait', () => {
    const clock = manualClock();
    const state = source();
    const countdown = createCountdown(state, clock);
    countdown.subscribe(() => undefined);
    state.waitUntil(clock.now() + 30_000);
    expect(countdown.getSnapshot()).toBe(30);
    clock.advance(1200);
    expect(countdown.getSnapshot()).toBe(29);
    state.waitUntil(undefined);
    expect(countdown.getSnapshot()).toBeUndefined();
    expect(clock.pending()).toBe(0);
    state.waitUntil(clock.now() + 4000);
    expect(countdown.getSnapshot()).toBe(4);
  });

  it('holds nothing while nobody watches, and reads the clock then', () => {
    const clock = manualClock();
    const state = source();
    const countdown = createCountdown(state, clock);
    state.waitUntil(clock.now() + 5000);
    expect(countdown.getSnapshot()).toBe(5);
    clock.advance(2000);
    expect(countdown.getSnapshot()).toBe(3);
    expect(clock.pending()).toBe(0);
    const unsubscribe = countdown.subscribe(() => undefined);
    expect(clock.pending()).toBe(1);
    unsubscribe();
    expect(clock.pending()).toBe(0);
    state.waitUntil(clock.now() + 9000);
    expect(clock.pending()).toBe(0);
  });
});
