import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/simulator/prng.js';
import { EventQueue } from '../../src/testing/event-queue.js';

const gc = ((): (() => void) => {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

describe('EventQueue', () => {
  it('pops by time, then first scheduled first', () => {
    const queue = new EventQueue();
    const order: string[] = [];
    const times = [5, 1, 3, 1, 5, 0, 3, 2];
    times.forEach((time, i) => queue.push(time, () => order.push(`${time}:${i}`)));
    while (queue.size > 0) queue.pop()!.run();
    expect(order).toEqual(['0:5', '1:1', '1:3', '2:7', '3:2', '3:6', '5:0', '5:4']);
  });

  it('sorts 10,000 random times like Array.prototype.sort', () => {
    const random = mulberry32(9);
    const queue = new EventQueue();
    const times = Array.from({ length: 10_000 }, () => Math.floor(random() * 500));
    for (const time of times) queue.push(time, () => undefined);
    const popped: number[] = [];
    while (queue.size > 0) popped.push(queue.pop()!.time);
    expect(popped).toEqual([...times].sort((a, b) => a - b));
  });

  it('lets go of a popped event while others of its instant are still pending', async () => {
    // A simulation keeps an instant for as long as it has events: one popped early must not be
    // kept with it, or all its callback holds (a request, an answer) outlives its use.
    const queue = new EventQueue();
    // Made in a function of its own, so only the event's callback holds the payload.
    const held = ((): WeakRef<object> => {
      const payload = { answer: 'x'.repeat(1000) };
      queue.push(7, () => payload);
      return new WeakRef(payload);
    })();
    queue.push(7, () => undefined);
    expect(queue.pop()!.time).toBe(7);
    expect(queue.size).toBe(1);
    // The popped event and its closure are now unreachable but through the queue, if it kept them.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.deref()).toBeUndefined();
    expect(queue.pop()!.time).toBe(7);
  });
});
