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

  it('names the rule each bad option breaks, exactly', () => {
    const duration = (name: string): TypeError => new TypeError(`Expected \`${name}\` to be a finite number >= 0`);
    for (const bad of [-1, Number.NaN, Infinity, '5']) {
      expect(() => fullJitter({ base: bad as number, cap: 1000 }), `base ${String(bad)}`).toThrow(duration('base'));
      expect(() => equalJitter({ base: 0, cap: bad as number }), `cap ${String(bad)}`).toThrow(duration('cap'));
      expect(() => exponential({ base: 1, cap: 2, jitter: bad as number }), `jitter ${String(bad)}`).toThrow(duration('jitter'));
      expect(() => constant(bad as number), `ms ${String(bad)}`).toThrow(duration('ms'));
    }
    expect(() => decorrelatedJitter({ base: 1, cap: 2, random: 3 as never })).toThrow(new TypeError('Expected `random` to be a function'));
    expect(() => exponential({ base: 2, cap: 1 })).toThrow(new TypeError('Expected `base` to be <= `cap`'));
  });

  it('accepts the edges: a base of 0, a base equal to the cap, a jitter and a constant of 0', () => {
    expect([1, 2, 3].map(exponential({ base: 0, cap: 0 }))).toEqual([0, 0, 0]);
    expect([1, 2, 3].map(fullJitter({ base: 300, cap: 300, random: () => 0.5 }))).toEqual([150, 150, 150]);
    expect(exponential({ base: 100, cap: 1000, jitter: 0, random: () => 1 })(2)).toBe(200);
    expect(constant(0)(3)).toBe(0);
  });

  it('treats a retry number below 1 as the first retry', () => {
    for (const attempt of [0, -3]) {
      expect(exponential({ base: 100, cap: 1000 })(attempt), `attempt ${attempt}`).toBe(100);
      expect(fullJitter({ base: 100, cap: 1000, random: () => 0.5 })(attempt), `attempt ${attempt}`).toBe(50);
      expect(equalJitter({ base: 100, cap: 1000, random: () => 0.5 })(attempt), `attempt ${attempt}`).toBe(75);
    }
    // decorrelatedJitter resets at 0 as at 1.
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect([1, 2, 0, 2].map(backoff)).toEqual([200, 350, 200, 350]);
  });

  it('caps every strategy at `cap`, at the top of its random range too', () => {
    const top = (): number => 0.999_999;
    expect(exponential({ base: 100, cap: 1000, jitter: 1, random: top })(10)).toBeCloseTo(1000 * 1.999_999, 9);
    expect(fullJitter({ base: 100, cap: 1000, random: top })(10)).toBeCloseTo(999.999, 9);
    expect(equalJitter({ base: 100, cap: 1000, random: top })(10)).toBeCloseTo(999.9995, 9);
    expect(decorrelatedJitter({ base: 100, cap: 1000, random: top })(5)).toBe(299.999_8);
    const decorrelated = decorrelatedJitter({ base: 100, cap: 1000, random: () => 1 });
    expect([1, 2, 3, 4, 5].map(decorrelated)).toEqual([300, 900, 1000, 1000, 1000]);
  });

  it('every jittered strategy reads Math.random at each call when given no random', () => {
    const strategies = [
      equalJitter({ base: 100, cap: 100 }),
      decorrelatedJitter({ base: 100, cap: 1000 }),
      exponential({ base: 100, cap: 100, jitter: 1 }),
    ];
    const original = Math.random;
    Math.random = () => 0.25;
    try {
      expect(strategies.map((backoff) => backoff(1))).toEqual([62.5, 150, 125]);
    } finally {
      Math.random = original;
    }
  });
});
