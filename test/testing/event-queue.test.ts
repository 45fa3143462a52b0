import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/simulator/prng.js';
import { EventQueue } from '../../src/testing/event-queue.js';

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
});
