import { describe, expect, it } from 'vitest';
import { nextSlowdown, slowsPace } from '../../src/policy/throttle.js';

// The slowdown rule of a throttled poller, as pure functions (AIMD): only a
// 429 slows the pace; each one multiplies the slowdown by 2^(1 + random),
// from at least the interval, up to four intervals; each success takes 40 %
// off how far it is above the interval, and once that is 40 % of the
// interval or less it is gone.

describe('slowsPace', () => {
  it('is true for a 429 only: a 503 says the server is down, not that this client asks too often', () => {
    expect(slowsPace(429)).toBe(true);
    for (const status of [0, 200, 204, 304, 408, 500, 502, 503, 504]) expect(slowsPace(status), String(status)).toBe(false);
  });
});

describe('nextSlowdown', () => {
  it('multiplies by 2^(1 + random) from at least the interval, capped at four intervals', () => {
    expect(nextSlowdown(0, 1000, true, 0)).toBe(2000);
    expect(nextSlowdown(0, 1000, true, 0.5)).toBeCloseTo(2000 * Math.SQRT2, 9);
    expect(nextSlowdown(500, 1000, true, 0)).toBe(2000);
    expect(nextSlowdown(1500, 1000, true, 0)).toBe(3000);
    expect(nextSlowdown(3000, 1000, true, 0)).toBe(4000);
    expect(nextSlowdown(4000, 1000, true, 0)).toBe(4000);
    expect(nextSlowdown(0, 1000, true, 0.999)).toBeCloseTo(3997.228, 3);
  });

  it('takes 40 % off the excess over the interval with each success: back to the interval on the fourth success from four intervals', () => {
    const after = (slowdown: number, interval: number): number[] => {
      const successes = [slowdown];
      while (successes.at(-1)! > 0) successes.push(nextSlowdown(successes.at(-1)!, interval, false, 0.5));
      return successes;
    };
    expect(after(4000, 1000)).toEqual([4000, 2800, 2080, 1648, 0]);
    expect(after(2000, 1000)).toEqual([2000, 1600, 0]);
    expect(after(2000 * Math.SQRT2, 1000).map(Math.round)).toEqual([2828, 2097, 1658, 0]);
    expect(after(20_000, 5000)).toEqual([20_000, 14_000, 10_400, 8240, 0]);
  });

  it('drops it once the excess would be 40 % of the interval or less', () => {
    // 5000 - 2000 × 0.6 above 3000: 4200, exactly 40 % above, gone.
    expect(nextSlowdown(5000, 3000, false, 0)).toBe(0);
    expect(nextSlowdown(5005, 3000, false, 0)).toBe(4203);
    expect(nextSlowdown(1000, 1000, false, 0)).toBe(0);
    expect(nextSlowdown(0, 1000, false, 0)).toBe(0);
  });

  it('a throttle during the recovery multiplies what is left of it', () => {
    expect(nextSlowdown(nextSlowdown(4000, 1000, false, 0), 1000, true, 0)).toBe(4000);
    expect(nextSlowdown(nextSlowdown(2000, 1000, false, 0), 1000, true, 0)).toBe(3200);
    expect(nextSlowdown(nextSlowdown(nextSlowdown(2000, 1000, false, 0), 1000, false, 0), 1000, true, 0)).toBe(2000);
  });
});
