import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/simulator/event-queue.js';
import { mulberry32 } from '../../src/simulator/prng.js';
import { VirtualTime } from '../../src/simulator/virtual-time.js';
import { wait } from '../../src/env/wait.js';
import { resolveEnvironment } from '../../src/env/environment.js';

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

describe('VirtualTime', () => {
  it('runs timers in order without waiting, on a 1 ms grid, and skips cleared ones', async () => {
    const time = new VirtualTime();
    const seen: Array<[string, number]> = [];
    time.setTimeout(() => seen.push(['b', time.now()]), 20.2);
    time.setTimeout(() => seen.push(['a', time.now()]), 10);
    const cleared = time.setTimeout(() => seen.push(['never', time.now()]), 15);
    time.clearTimeout(cleared);
    time.setTimeout(() => seen.push(['late', time.now()]), 1000);
    await time.run(500);
    expect(seen).toEqual([
      ['a', 10],
      ['b', 21],
    ]);
    expect(time.now()).toBe(500);
  });

  it('lets promise chains finish before time moves on, so real async code sees the right clock', async () => {
    const time = new VirtualTime();
    const env = resolveEnvironment(time.env(() => 0.5));
    const log: string[] = [];
    const worker = async (name: string, waits: number[]): Promise<void> => {
      for (const ms of waits) {
        await wait(env, ms);
        await Promise.resolve();
        await new Promise<void>((resolve) => queueMicrotask(resolve));
        log.push(`${name}@${env.now()}`);
      }
    };
    void worker('x', [10, 10, 10]);
    void worker('y', [15, 1, 1]);
    await time.run(100);
    expect(log).toEqual(['x@10', 'y@15', 'y@16', 'y@17', 'x@20', 'x@30']);
  });

  it('keeps exact times with resolution 0', async () => {
    const time = new VirtualTime(0);
    const seen: number[] = [];
    time.setTimeout(() => seen.push(time.now()), 0.25);
    time.at(0.125, () => seen.push(time.now()));
    await time.run(1, false);
    expect(seen).toEqual([0.125, 0.25]);
  });
});
