import { describe, expect, it } from 'vitest';
import { nextSlowdown } from '../../src/policy/throttle.js';

// The slowdown rule of a throttled poller, as a pure function (AIMD): each
// throttled answer multiplies it by 2^(1 + random), from at least the
// interval, up to four intervals; each success takes a sixteenth of the
// interval off it, and at or below the interval it is gone.

describe('nextSlowdown', () => {
  it('multiplies by 2^(1 + random) from at least the interval, capped at four intervals', () => {
    expect(nextSlowdown(0, 1000, true, 0)).toBe(2000);
    expect(nextSlowdown(0, 1000, true, 0.5)).toBeCloseTo(2000 * Math.SQRT2, 9);
    expect(nextSlowdown(500, 1000, true, 0)).toBe(2000);
    expect(nextSlowdown(1500, 1000, true, 0)).toBe(3000);
    expect(nextSlowdown(3000, 1000, true, 0)).toBe(4000);
    expect(nextSlowdown(0, 1000, true, 0.999)).toBeCloseTo(3997.228, 3);
  });

  it('takes a sixteenth of the interval off with each success, and drops it once it would not be above the interval', () => {
    const successes = [4000];
    while (successes.at(-1)! > 0) successes.push(nextSlowdown(successes.at(-1)!, 1600, false, 0.5));
    expect(successes).toEqual([4000, 3900, 3800, 3700, 3600, 3500, 3400, 3300, 3200, 3100, 3000, 2900, 2800, 2700, 2600, 2500, 2400, 2300, 2200, 2100, 2000, 1900, 1800, 1700, 0]);
    // Exactly the interval after the step: gone too (a slowdown of the interval slows nothing).
    expect(nextSlowdown(1700, 1600, false, 0)).toBe(0);
    expect(nextSlowdown(1700.5, 1600, false, 0)).toBe(1600.5);
    expect(nextSlowdown(1650, 1600, false, 0)).toBe(0);
    expect(nextSlowdown(0, 1600, false, 0)).toBe(0);
  });
});
