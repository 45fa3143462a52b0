import { describe, expect, it } from 'vitest';
import { constant, decorrelatedJitter, equalJitter, exponential, fullJitter } from '../../src/index.js';
import type { Backoff } from '../../src/backoff/types.js';
import { randomSequence } from '../helpers/env.js';

/** Each retry number on its own, as a caller that passes no `previous` (not `.map(backoff)`: map would pass its index as `previous`). */
const each = (backoff: Backoff, attempts: number[]): number[] => attempts.map((attempt) => backoff(attempt));
/** The retries of one loop: each call handed the backoff chosen before it, as the attempt loop does (0 before the first). */
const loop = (backoff: Backoff, attempts: number[]): number[] => {
  let previous = 0;
  return attempts.map((attempt) => (previous = backoff(attempt, previous)));
};

describe('backoff strategies', () => {
  it('fullJitter draws random() * min(cap, base * 2 ** (n - 1))', () => {
    const backoff = fullJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect(each(backoff, [1, 2, 3, 4, 5, 6])).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('equalJitter keeps half of the ceiling and randomises the other half', () => {
    const backoff = equalJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect(each(backoff, [1, 2, 3, 5])).toEqual([75, 150, 300, 750]);
    expect(equalJitter({ base: 100, cap: 1000, random: () => 0 })(3)).toBe(200);
  });

  it('decorrelatedJitter grows from the previous wait it is handed and starts from base at attempt 1', () => {
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: randomSequence([0.5, 0.5, 0.5, 1, 0.5]) });
    expect(backoff(1)).toBe(200); // 100 + 0.5 * (300 - 100)
    expect(backoff(2, 200)).toBe(350); // 100 + 0.5 * (600 - 100)
    expect(backoff(3, 350)).toBe(575); // 100 + 0.5 * (1050 - 100)
    expect(backoff(4, 575)).toBe(1000); // capped
    expect(backoff(1, 1000)).toBe(200); // attempt 1 starts from base, whatever it is handed
  });

  it('decorrelatedJitter is pure: the same inputs give the same wait, and it ignores the interval', () => {
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect([backoff(3, 350), backoff(3, 350), backoff(3, 350, 60_000)]).toEqual([575, 575, 575]);
    expect([backoff(2, 200), backoff(1), backoff(2, 200)]).toEqual([350, 200, 350]);
    // Reads random once per call, and only then.
    let draws = 0;
    const counted = decorrelatedJitter({ base: 100, cap: 1000, random: () => (draws += 1, 0.5) });
    counted(1);
    counted(4, 575);
    expect(draws).toBe(2);
  });

  it('decorrelatedJitter serves two loops at once: interleaved, neither moves the other', () => {
    const shared = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    const alone = loop(decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 }), [1, 2, 3, 4, 5]);
    expect(alone).toEqual([200, 350, 575, 912.5, 1000]);
    let a = 0;
    let b = 0;
    const seen: Array<[string, number]> = [];
    for (const [who, attempt] of [['a', 1], ['a', 2], ['b', 1], ['a', 3], ['b', 2], ['a', 4], ['a', 5], ['b', 3]] as const) {
      if (who === 'a') seen.push([who, (a = shared(attempt, a))]);
      else seen.push([who, (b = shared(attempt, b))]);
    }
    expect(seen.filter(([who]) => who === 'a').map(([, ms]) => ms)).toEqual(alone);
    expect(seen.filter(([who]) => who === 'b').map(([, ms]) => ms)).toEqual(alone.slice(0, 3));
  });

  it('decorrelatedJitter without a previous wait (0, or none given) grows from the exponential ceiling of the retry before', () => {
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    // last = min(cap, base * 2 ** (attempt - 2)): 100, 100, 200, 400, 800, 1000...
    expect(each(backoff, [1, 2, 3, 4, 5, 10])).toEqual([200, 200, 350, 650, 1000, 1000]);
    expect([1, 2, 3, 4].map((attempt) => backoff(attempt, 0))).toEqual([200, 200, 350, 650]);
    // A previous wait under base counts as base; any previous wait above 0 wins over the ceiling.
    expect(backoff(2, 50)).toBe(200);
    expect(backoff(4, 1)).toBe(200);
    expect(backoff(3, 120)).toBe(230);
    // At random 0 every wait is base; at random 1 three times the last (capped).
    expect(decorrelatedJitter({ base: 100, cap: 1000, random: () => 0 })(6, 900)).toBe(100);
    expect(decorrelatedJitter({ base: 100, cap: 10_000, random: () => 1 })(4)).toBe(1200);
    expect(decorrelatedJitter({ base: 100, cap: 10_000, random: () => 1 })(4, 250)).toBe(750);
  });

  it('exponential adds jitter * random() of the ceiling, none by default', () => {
    expect(each(exponential({ base: 500, cap: 10_000 }), [1, 2, 3, 4])).toEqual([500, 1000, 2000, 4000]);
    expect(exponential({ base: 500, cap: 10_000, jitter: 0.25, random: () => 1 })(2)).toBe(1250);
    expect(exponential({ base: 500, cap: 1000 })(10)).toBe(1000);
  });

  it('constant waits the same every time', () => {
    expect(each(constant(42), [1, 5, 50])).toEqual([42, 42, 42]);
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
    expect(each(exponential({ base: 0, cap: 0 }), [1, 2, 3])).toEqual([0, 0, 0]);
    expect(each(fullJitter({ base: 300, cap: 300, random: () => 0.5 }), [1, 2, 3])).toEqual([150, 150, 150]);
    expect(exponential({ base: 100, cap: 1000, jitter: 0, random: () => 1 })(2)).toBe(200);
    expect(constant(0)(3)).toBe(0);
  });

  it('treats a retry number below 1 as the first retry', () => {
    for (const attempt of [0, -3]) {
      expect(exponential({ base: 100, cap: 1000 })(attempt), `attempt ${attempt}`).toBe(100);
      expect(fullJitter({ base: 100, cap: 1000, random: () => 0.5 })(attempt), `attempt ${attempt}`).toBe(50);
      expect(equalJitter({ base: 100, cap: 1000, random: () => 0.5 })(attempt), `attempt ${attempt}`).toBe(75);
    }
    // decorrelatedJitter starts from base at 0 as at 1, whatever it is handed.
    const backoff = decorrelatedJitter({ base: 100, cap: 1000, random: () => 0.5 });
    expect(loop(backoff, [1, 2, 0, 2])).toEqual([200, 350, 200, 350]);
    expect([backoff(0, 900), backoff(-3, 900)]).toEqual([200, 200]);
  });

  it('caps every strategy at `cap`, at the top of its random range too', () => {
    const top = (): number => 0.999_999;
    expect(exponential({ base: 100, cap: 1000, jitter: 1, random: top })(10)).toBeCloseTo(1000 * 1.999_999, 9);
    expect(fullJitter({ base: 100, cap: 1000, random: top })(10)).toBeCloseTo(999.999, 9);
    expect(equalJitter({ base: 100, cap: 1000, random: top })(10)).toBeCloseTo(999.9995, 9);
    // No previous wait at retry 5: it grows from the ceiling of retry 4 (800), 100 + 0.999999 * 2300, capped.
    expect(decorrelatedJitter({ base: 100, cap: 1000, random: top })(5)).toBe(1000);
    expect(decorrelatedJitter({ base: 100, cap: 1000, random: top })(1)).toBe(299.999_8);
    const decorrelated = decorrelatedJitter({ base: 100, cap: 1000, random: () => 1 });
    expect(loop(decorrelated, [1, 2, 3, 4, 5])).toEqual([300, 900, 1000, 1000, 1000]);
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
