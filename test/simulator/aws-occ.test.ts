import { describe, expect, it } from 'vitest';
import { awsOccStudy, compareOccToOriginal, OCC_ORIGINAL_AT_100, runOcc } from '../../src/simulator/aws-occ.js';
import { occTable } from '../../src/simulator/report.js';
import { ClientHeap } from '../../src/simulator/client-heap.js';

describe('the AWS "Exponential Backoff And Jitter" study, reproduced', () => {
  it('at 100 clients, full jitter makes fewer than half the calls of exponential and finishes far sooner', () => {
    const points = awsOccStudy({ clients: [100], runs: 20, strategies: ['exponential', 'full-jitter'] });
    const [exponential, full] = points;
    expect(exponential).toMatchObject({ clients: 100, strategy: 'exponential' });
    expect(full!.calls).toBeLessThan(exponential!.calls / 2);
    expect(full!.completion).toBeLessThan(exponential!.completion / 4);
    // Exactly, for the default seed (1).
    expect([exponential, full].map((p) => [p!.calls, Math.round(p!.completion)])).toEqual([
      [1871.9, 63_311],
      [797.1, 4727],
    ]);
  });

  it('lands every strategy within 3% of the original simulator at 100 clients (100 runs, seed 1), exactly these means', () => {
    const points = awsOccStudy({ clients: [100], runs: 100, seed: 1 });
    expect(points.map((p) => [p.strategy, p.calls, Math.round(p.completion)])).toEqual([
      ['none', 2422.93, 2028],
      ['exponential', 1869.34, 64_004],
      ['full-jitter', 795.75, 4903],
      ['equal-jitter', 812.48, 6606],
      ['decorrelated-jitter', 1001.1, 4688],
    ]);
    const comparison = compareOccToOriginal(points);
    expect(comparison.map((c) => c.strategy)).toEqual(Object.keys(OCC_ORIGINAL_AT_100));
    for (const c of comparison) {
      expect(Math.abs(c.calls / OCC_ORIGINAL_AT_100[c.strategy].calls - 1), `${c.strategy} calls`).toBeLessThanOrEqual(0.03);
      expect(Math.abs(c.completion / OCC_ORIGINAL_AT_100[c.strategy].completion - 1), `${c.strategy} completion`).toBeLessThanOrEqual(0.03);
      expect(c.within).toBe(true);
    }
    // The table says so, as `npm run bench:aws` and `pollite simulate --scenario aws-occ` print it.
    expect(occTable(points, 100)).toMatch(/^decorrelated-jitter +1,001 +1,005 +-0\.4% +4,688 +4,600 +\+1\.9% +yes$/m);
  }, 30_000);

  it("gives decorrelated jitter the original's floor (base 5), the others its ceilings (base 10 in pollite's terms)", () => {
    // The decorrelated strategy's first wait is uniform in [5, 15) ms, as the original's: more calls than with base 10.
    const [dec] = awsOccStudy({ clients: [100], runs: 10, strategies: ['decorrelated-jitter'] });
    expect(dec!.calls).toBe(1001.7);
    expect(compareOccToOriginal(awsOccStudy({ clients: [50], runs: 1 }))).toEqual([]);
  });

  it('one client never conflicts: one call, done after four hops', () => {
    for (const strategy of ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'] as const) {
      const run = runOcc(strategy, 1, 7);
      expect(run.calls).toBe(1);
      // Four hops of the seed's latencies, whatever the strategy.
      expect(run.completion).toBeCloseTo(41.978_424, 6);
      expect(run.completion).toBe(runOcc('none', 1, 7).completion);
    }
  });

  it('every client succeeds exactly once: with no backoff, N clients make at least N calls', () => {
    const run = runOcc('none', 10, 3);
    expect(run.calls).toBeGreaterThanOrEqual(10);
    // Seed 3: 41 conflicting calls on top of the 10 successes.
    expect(run).toEqual({ calls: 51, completion: expect.closeTo(379.399_899, 6) });
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
