import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitDeadline, type DeadlineFit } from '../../src/policy/deadline-rule.js';
import { FC_RUNS } from '../property/runs.js';

// The deadline rule as a pure function: a wait that ends by the deadline is
// kept; one that would cross it is shortened so the next try starts
// max(1, lastTry) ms before the deadline, and that try is the last; never
// below the server's floor, never twice; when no try fits, wait for the
// deadline itself ('deadline').

const NOW = 1000;
const DEADLINE = 11_000; // 10 s of room
const fit = (delay: number, { floor = 0, lastTry = 0, now = NOW, deadline = DEADLINE, lastMade = false } = {}): DeadlineFit =>
  fitDeadline(delay, floor, lastTry, now, deadline, lastMade);

describe('fitDeadline', () => {
  it('keeps a wait that ends before the deadline', () => {
    expect(fit(0)).toEqual({ wait: 0, last: false });
    expect(fit(3000)).toEqual({ wait: 3000, last: false });
    expect(fit(9999, { lastTry: 5000, floor: 9999 })).toEqual({ wait: 9999, last: false });
  });

  it('keeps a wait that ends exactly at the deadline; one ms more is shortened and made the last', () => {
    expect(fit(10_000)).toEqual({ wait: 10_000, last: false });
    expect(fit(10_000, { lastTry: 500 })).toEqual({ wait: 10_000, last: false });
    expect(fit(10_001)).toEqual({ wait: 9999, last: true });
    expect(fit(0, { now: DEADLINE })).toEqual({ wait: 0, last: false });
  });

  it('shortens a wait that would cross the deadline so the last try starts as long before it as the last try took', () => {
    expect(fit(20_000, { lastTry: 500 })).toEqual({ wait: 9500, last: true });
    expect(fit(10_001, { lastTry: 2 })).toEqual({ wait: 9998, last: true });
    expect(fit(Number.MAX_SAFE_INTEGER, { lastTry: 3000 })).toEqual({ wait: 7000, last: true });
  });

  it('leaves at least 1 ms before the deadline: a last try of 0 ms (or under 1 ms) counts as 1', () => {
    for (const lastTry of [0, 0.4, 1]) expect(fit(20_000, { lastTry }), `lastTry ${lastTry}`).toEqual({ wait: 9999, last: true });
    expect(fit(20_000, { lastTry: 2 })).toEqual({ wait: 9998, last: true });
  });

  it('rounds the shortened wait down to whole ms, so the margin is never cut', () => {
    // 10000 - 1.5 = 9998.5: floor, not round or ceil.
    expect(fit(20_000, { lastTry: 1.5 })).toEqual({ wait: 9998, last: true });
    // 11000 - 1000.3 - 1 = 9998.7.
    expect(fit(20_000, { now: 1000.3 })).toEqual({ wait: 9998, last: true });
  });

  it('a last try that took as long as the room, or longer: a try at once, the last', () => {
    expect(fit(20_000, { lastTry: 10_000 })).toEqual({ wait: 0, last: true });
    expect(fit(20_000, { lastTry: 50_000 })).toEqual({ wait: 0, last: true });
    // 1 ms of room.
    expect(fit(5, { deadline: NOW + 1 })).toEqual({ wait: 0, last: true });
    // Half a ms of room: still a try, at once.
    expect(fit(1, { now: DEADLINE - 0.5 })).toEqual({ wait: 0, last: true });
  });

  it('never shortens below the server\'s floor: the floor wins over the margin while it ends before the deadline', () => {
    // The margin would start the try at 9500; the server asked for 9999.
    expect(fit(12_000, { floor: 9999, lastTry: 500 })).toEqual({ wait: 9999, last: true });
    // A floor under the margin: the margin decides.
    expect(fit(12_000, { floor: 2000, lastTry: 500 })).toEqual({ wait: 9500, last: true });
    expect(fit(12_000, { floor: 9500, lastTry: 500 })).toEqual({ wait: 9500, last: true });
  });

  it('a floor that reaches the deadline or past it leaves no room: wait for the deadline', () => {
    expect(fit(12_000, { floor: 10_000 })).toEqual({ wait: 'deadline' });
    expect(fit(12_000, { floor: 12_000 })).toEqual({ wait: 'deadline' });
    expect(fit(600_000, { floor: 300_000, lastTry: 200 })).toEqual({ wait: 'deadline' });
  });

  it('never makes a second last try: after one, a wait that crosses the deadline waits for the deadline', () => {
    expect(fit(10_001, { lastMade: true })).toEqual({ wait: 'deadline' });
    expect(fit(20_000, { lastMade: true, lastTry: 500 })).toEqual({ wait: 'deadline' });
    // A wait that still ends by the deadline is kept: `lastMade` bars only another shortened try.
    expect(fit(3000, { lastMade: true })).toEqual({ wait: 3000, last: false });
    expect(fit(10_000, { lastMade: true })).toEqual({ wait: 10_000, last: false });
  });

  it('a deadline already passed: no try', () => {
    expect(fit(0, { now: DEADLINE + 1 })).toEqual({ wait: 'deadline' });
    expect(fit(5, { now: DEADLINE })).toEqual({ wait: 'deadline' });
  });

  it('an Infinity deadline keeps every wait, whatever the floor, the last try or lastMade', () => {
    for (const delay of [0, 1, 300_000, 1e12, Number.MAX_VALUE]) {
      expect(fit(delay, { deadline: Infinity }), `delay ${delay}`).toEqual({ wait: delay, last: false });
      expect(fit(delay, { deadline: Infinity, floor: delay, lastTry: 1e9, lastMade: true }), `delay ${delay}`).toEqual({ wait: delay, last: false });
    }
  });

  it('so a loop tries until the deadline: the last try starts lastTry before it, then nothing more is sent', () => {
    // Every try takes 300 ms and fails; the backoff asks 5 s each time; the deadline is 12 s after the start.
    const deadline = 12_000;
    const starts: number[] = [];
    let now = 0;
    let lastMade = false;
    for (;;) {
      starts.push(now);
      now += 300;
      const next = fitDeadline(5000, 0, 300, now, deadline, lastMade);
      if (next.wait === 'deadline') break;
      lastMade ||= next.last;
      now += next.wait;
    }
    expect(starts).toEqual([0, 5300, 10_600, 11_700]);
    expect(now).toBe(12_000);
  });

  it('for any wait, floor, last try and time: a try it allows starts before the deadline, never below the floor, and a crossing wait is the last', () => {
    const ms = fc.integer({ min: 0, max: 1e7 });
    fc.assert(
      fc.property(ms, ms, ms, ms, ms, fc.boolean(), (delay, floor, lastTry, now, room, lastMade) => {
        const deadline = now + room;
        const got = fitDeadline(Math.max(delay, floor), floor, lastTry, now, deadline, lastMade);
        if (now + Math.max(delay, floor) <= deadline) {
          expect(got).toEqual({ wait: Math.max(delay, floor), last: false });
          return;
        }
        // No room exactly when a last try was made, or even the floor (an immediate try at least) reaches the deadline.
        expect(got.wait === 'deadline').toBe(lastMade || now + floor >= deadline);
        if (got.wait === 'deadline') return;
        expect(got.last).toBe(true);
        expect(Number.isInteger(got.wait)).toBe(true);
        expect(got.wait).toBeGreaterThanOrEqual(floor);
        expect(now + got.wait).toBeLessThan(deadline);
        expect(got.wait).toBeLessThan(Math.max(delay, floor));
        // The margin is kept unless the floor or an immediate try overrides it.
        if (got.wait > floor && got.wait > 0) expect(now + got.wait + Math.max(1, lastTry)).toBe(deadline);
      }),
      { numRuns: FC_RUNS },
    );
  });
});
