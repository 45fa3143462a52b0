import { describe, expect, it } from 'vitest';
import { constant, decorrelatedJitter, equalJitter, exponential, fullJitter } from '../../src/index.js';
import { randomSequence } from '../helpers/env.js';

describe('backoff strategies', () => {
  it('fullJitter draws random() * min(cap, base * 2 ** (n - 1))', () => {
    const backoff = fullJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6].map(backoff)).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('equalJitter keeps half of the ceiling and randomises the other half', () => {
    const backoff = equalJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect([1, 2, 3, 5].map(backoff)).toEqual([75, 150, 300, 750]);
    expect(equalJitter({ base: 100, cap: 1000, random: () => 0 })(3)).toBe(200);
  });

  it('decorrelatedJitter grows from the previous wait and resets at attempt 1', () => {
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: randomSequence([0.5, 0.5, 0.5, 1, 0.5]) });
    expect(backoff(1)).toBe(200); // 100 + 0.5 * (300 - 100)
    expect(backoff(2)).toBe(350); // 100 + 0.5 * (600 - 100)
    expect(backoff(3)).toBe(575); // 100 + 0.5 * (1050 - 100)
    expect(backoff(4)).toBe(1000); // capped
    expect(backoff(1)).toBe(200); // reset
  });

  it('exponential adds jitter * random() of the ceiling, none by default', () => {
    expect([1, 2, 3, 4].map(exponential({ base: 500, cap: 10_000 }))).toEqual([500, 1000, 2000, 4000]);
    expect(exponential({ base: 500, cap: 10_000, jitter: 0.25, random: () => 1 })(2)).toBe(1250);
    expect(exponential({ base: 500, cap: 1000 })(10)).toBe(1000);
  });

  it('constant waits the same every time', () => {
    expect([1, 5, 50].map(constant(42))).toEqual([42, 42, 42]);
  });

  it('uses Math.random by default, bound late', () => {
    const backoff = fullJitter({ base: 100, cap: 100 });
    const original = Math.random;
    Math.random = () => 0.25;
    try {
      expect(backoff(1)).toBe(25);
    } finally {
      Math.random = original;
    }
  });

  it('refuses bad options at once with a TypeError naming the option', () => {
    expect(() => fullJitter({ base: 2000, cap: 1000 })).toThrow(new TypeError('Expected `base` to be <= `cap`'));
    expect(() => equalJitter({ base: -1, cap: 1000 })).toThrow(/`base`/);
    expect(() => decorrelatedJitter({ base: 1, cap: Number.NaN })).toThrow(/`cap`/);
    expect(() => exponential({ base: 1, cap: 2, jitter: -1 })).toThrow(/`jitter`/);
    expect(() => fullJitter({ base: 1, cap: 2, random: 3 as never })).toThrow(/`random`/);
    expect(() => constant(Infinity)).toThrow(/`ms`/);
    expect(() => fullJitter(undefined as never)).toThrow(/`base`/);
  });
});
