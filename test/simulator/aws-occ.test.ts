import { describe, expect, it } from 'vitest';
import { awsOccStudy, runOcc } from '../../src/simulator/aws-occ.js';
import { ClientHeap } from '../../src/simulator/client-heap.js';

describe('the AWS "Exponential Backoff And Jitter" study, reproduced', () => {
  it('at 100 clients, full jitter makes fewer than half the calls of exponential and finishes far sooner', () => {
    const points = awsOccStudy({ clients: [100], runs: 20, strategies: ['exponential', 'full-jitter'] });
    const [exponential, full] = points;
    expect(exponential).toMatchObject({ clients: 100, strategy: 'exponential' });
    expect(full!.calls).toBeLessThan(exponential!.calls / 2);
    expect(full!.completion).toBeLessThan(exponential!.completion / 4);
  });

  it('one client never conflicts: one call, done after four hops', () => {
    for (const strategy of ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'] as const) {
      const run = runOcc(strategy, 1, 7);
      expect(run.calls).toBe(1);
      expect(run.completion).toBeGreaterThan(0);
      expect(run.completion).toBe(runOcc('none', 1, 7).completion);
    }
  });

  it('every client succeeds exactly once: with no backoff, N clients make at least N calls', () => {
    const run = runOcc('none', 10, 3);
    expect(run.calls).toBeGreaterThanOrEqual(10);
    expect(runOcc('none', 10, 3)).toEqual(run);
  });

  it('is repeatable for a seed and names bad options', () => {
    const options = { clients: [20], runs: 3, seed: 9 };
    expect(awsOccStudy(options)).toEqual(awsOccStudy(options));
    expect(() => awsOccStudy({ runs: 0 })).toThrow(new TypeError('Expected `runs` to be a positive integer'));
    expect(() => awsOccStudy({ clients: [0] })).toThrow(new TypeError('Expected `clients` to be an array of positive integers'));
    expect(() => awsOccStudy({ strategies: ['linear' as never] })).toThrow(TypeError);
  });
});

describe('ClientHeap', () => {
  it('pops clients by due time, ties first-pushed first', () => {
    const heap = new ClientHeap(5);
    [30, 10, 20, 10, 5].forEach((time, client) => heap.push(client, time));
    const order: number[] = [];
    for (let client = heap.pop(); client >= 0; client = heap.pop()) order.push(client);
    expect(order).toEqual([4, 1, 3, 2, 0]);
  });
});
