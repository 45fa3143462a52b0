import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_SPREAD, spread } from '../../src/policy/spread.js';
import { FC_RUNS } from '../property/runs.js';

// The Retry-After spread as a pure function: a wait in [ms, 1.2 ms], placed
// by `random`, in whole ms rounded up, under a hard cap `max`. Between `ms`
// and the cap the spread shrinks to fit; a wait the cap cuts short
// (`ms > max`) is spread below the cap, over [max / 1.2, max].

const RANDOMS = [0, 0.5, 0.999] as const;
const at = (ms: number, max?: number): number[] => RANDOMS.map((random) => spread(ms, random, max));

describe('spread', () => {
  it('spreads up to 20 % above the wait', () => {
    expect(RETRY_AFTER_SPREAD).toBe(0.2);
  });

  it('the examples of its TSDoc', () => {
    expect(spread(5000, 0.5)).toBe(5500);
    expect(spread(5000, 0.5, 5500)).toBe(5250);
    expect(spread(600_000, 0.5, 300_000)).toBe(275_000);
  });

  it('without a cap: [ms, 1.2 ms] placed by random', () => {
    expect(at(5000)).toEqual([5000, 5500, 5999]);
    // 1000 + 0.999 * 200 = 1199.8, rounded up.
    expect(at(1000)).toEqual([1000, 1100, 1200]);
    expect(spread(10_000, 0.999_999)).toBe(12_000);
  });

  it('a wait under max / 1.2: the cap does not touch it', () => {
    expect(at(1000, 5000)).toEqual([1000, 1100, 1200]);
    // 1.2 ms exactly at the cap: still the whole spread.
    expect(at(5000, 6000)).toEqual([5000, 5500, 5999]);
  });

  it('a wait between max / 1.2 and max: the spread shrinks to fit under the cap', () => {
    expect(at(5000, 5500)).toEqual([5000, 5250, 5500]);
    expect(spread(5000, 0.2, 5500)).toBe(5100);
    expect(at(5000, 5999)).toEqual([5000, 5500, 5999]);
    expect(spread(5000, 0.999, 5998)).toBe(5998);
  });

  it('a wait equal to the cap: exactly the cap, no spread either way', () => {
    expect(at(5000, 5000)).toEqual([5000, 5000, 5000]);
    expect(at(300_000, 300_000)).toEqual([300_000, 300_000, 300_000]);
  });

  it('a wait above the cap: spread below it, over [max / 1.2, max]', () => {
    expect(at(600_000, 300_000)).toEqual([250_000, 275_000, 299_950]);
    // A wait one ms above the cap already drops to the bottom of that range: 5000 / 1.2 = 4166.67, rounded up.
    expect(at(5001, 5000)).toEqual([4167, 4584, 5000]);
    expect(at(3_600_000, 5000)).toEqual([4167, 4584, 5000]);
    expect(spread(10_000, 0, 500)).toBe(417);
    expect(spread(6001, 0.999, 5000)).toBe(5000);
  });

  it('rounds up to whole ms, so a server\'s wait is never undercut', () => {
    // ceil, not round or floor: 1000.1 -> 1001, 1101.1 -> 1102, 999.5 -> 1000.
    expect(spread(1000, 0.0001)).toBe(1001);
    expect(spread(1001, 0.5)).toBe(1102);
    expect(spread(999.5, 0)).toBe(1000);
    expect(spread(999.5, 0, 1000)).toBe(1000);
    expect(spread(1000.4, 0)).toBe(1001);
  });

  it('the edges: a wait of 0, a cap of 0', () => {
    expect(at(0)).toEqual([0, 0, 0]);
    expect(at(0, 0)).toEqual([0, 0, 0]);
    expect(at(1000, 0)).toEqual([0, 0, 0]);
    expect(at(1, 1)).toEqual([1, 1, 1]);
  });

  it('never above the cap, even one that is not whole ms', () => {
    // 5000 + 0.5 * 0.999 = 5000.4995 would round up past the cap.
    expect(spread(5000, 0.999, 5000.5)).toBeLessThanOrEqual(5000.5);
    expect(spread(5000.25, 0.999, 5000.5)).toBeLessThanOrEqual(5000.5);
  });

  it('for any wait, cap and random: within [min(ms, max / 1.2), max], whole ms, at least ms under the cap, at most 1.2 ms, and growing with random', () => {
    const ms = fc.oneof(fc.integer({ min: 0, max: 1e9 }), fc.double({ min: 0, max: 1e9, noNaN: true }));
    const max = fc.oneof(fc.integer({ min: 0, max: 1e9 }), fc.constant(Infinity));
    const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
    fc.assert(
      fc.property(ms, max, random, random, (ms, max, r1, r2) => {
        const got = spread(ms, r1, max);
        expect(Number.isInteger(got)).toBe(true);
        expect(got).toBeLessThanOrEqual(max);
        expect(got).toBeGreaterThanOrEqual(Math.min(ms, max / (1 + RETRY_AFTER_SPREAD)));
        if (ms <= max) expect(got).toBeGreaterThanOrEqual(ms);
        expect(got).toBeLessThanOrEqual(Math.ceil(ms * (1 + RETRY_AFTER_SPREAD)));
        const [low, high] = r1 <= r2 ? [r1, r2] : [r2, r1];
        expect(spread(ms, low, max)).toBeLessThanOrEqual(spread(ms, high, max));
      }),
      { numRuns: FC_RUNS },
    );
  });
});
