import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator/index.js';
import { exactClient } from './helpers/exact-client.js';

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

describe('simulate: requests and the requests-per-second series agree', () => {
  it('counts an arrival at exactly t = duration in the last second', async () => {
    // One naive client, no latency: requests arrive at 0, 1000 and 2000 ms, the last at the end of the run.
    const result = await simulate(exactClient({ duration: 2000, interval: 1000 }));
    const [naive] = result.strategies;
    expect(naive!.requests).toBe(3);
    expect(naive!.rps).toEqual([1, 2]);
  });

  it('sums to `requests` for every strategy of a busy run', async () => {
    const result = await simulate({
      clients: 100,
      duration: 10_000,
      interval: 1000,
      strategies: ['naive', 'fetch-with-retry', 'exponential', 'pollite'],
      latency: { mean: 0, sd: 0 },
    });
    for (const s of result.strategies) expect(sum(s.rps)).toBe(s.requests);
  });
});
