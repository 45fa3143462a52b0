import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/kit/index.js';
import { FC_RUNS } from '../property/runs.js';

// parseRetryAfter reads a header any server (or anything between) can
// write. Whatever the text, it returns null or a finite wait in [0, max],
// never throws and never hangs; valid forms read exactly as RFC 9110 says.

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const MAX = 300_000;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

const isSafeWait = (value: number | null, max: number): boolean => value === null || (Number.isFinite(value) && value >= 0 && value <= max && !Object.is(value, -0));

const ADVERSARIAL = [
  '-0', '-1', '1e3', '1E3', '0x10', '0b1', '0o7', '1_000', '+5', '5.', '.5', '1.5', '5s', 'Infinity', '-Infinity', 'NaN',
  '١٢٣', '１２３', '߀', '𝟏𝟐', '5\u0000', '\u00005', '5\n', '\t5\t', ' 5 ', '99999999999', '9'.repeat(400), '0'.repeat(10_000) + '7',
  'Fri, 31 Dec 9999 23:59:59 GMT', 'Sat, 01 Jan 0000 00:00:00 GMT', 'Tue, 29 Feb 0000 00:00:00 GMT', 'Mon, 29 Feb 2027 00:00:00 GMT',
  'Thu, 01 Jan 1970 00:00:00 GMT', 'Wed, 31 Apr 2026 00:00:00 GMT', 'Thu, 01 Jan 2026 24:00:00 GMT', 'Thu, 01 Jan 2026 23:60:00 GMT',
  'Thu, 01 Jan 2026 23:59:60 GMT', 'Thu, 1 Jan 2026 12:00:00 GMT', 'Thu, 01 Jan 2026 12:00:00 UTC', 'thu, 01 jan 2026 12:00:00 gmt',
  'Thursday, 01-Jan-26 12:00:30 GMT', 'Thu Jan  1 12:00:30 2026', '2026-01-01T12:00:30Z', '__proto__', 'constructor', 'toString',
  '1'.repeat(1024 * 1024), ' '.repeat(1024 * 1024) + '5', 'Mon, '.repeat(200_000), '0'.repeat(1024 * 1024), 'Thu, 01 Jan 2026 12:00:00 GMT'.repeat(30_000),
];

describe('parseRetryAfter under hostile input', () => {
  it('returns null or a finite wait in [0, max] for adversarial strings, 1 MB ones included', () => {
    for (const text of ADVERSARIAL) {
      for (const max of [0, 1, 5_000, MAX, Number.MAX_SAFE_INTEGER]) {
        const value = parseRetryAfter(text, { now: NOW, max });
        expect(isSafeWait(value, max), `${JSON.stringify(text.slice(0, 40))} (max ${max}) -> ${value}`).toBe(true);
      }
    }
    expect(parseRetryAfter('9'.repeat(400), { now: NOW, max: MAX })).toBe(MAX);
    expect(parseRetryAfter('99999999999', { now: NOW, max: MAX })).toBe(MAX);
    expect(parseRetryAfter('0'.repeat(10_000) + '7', { now: NOW })).toBe(7_000);
    for (const text of ['-0', '1e3', '١٢٣', '１２３', '𝟏𝟐', '0x10', '+5', '5.', 'Infinity', '__proto__']) {
      expect(parseRetryAfter(text, { now: NOW }), text).toBeNull();
    }
  });

  it(`never throws and never returns an unsafe wait for arbitrary strings (${FC_RUNS} runs each)`, () => {
    const arbitraries = [
      fc.string({ maxLength: 64 }),
      fc.string({ unit: 'grapheme', maxLength: 32 }),
      fc.string({ unit: 'binary', maxLength: 32 }),
      fc.stringMatching(/^[ \t]*[0-9]{0,25}[ \t]*$/),
      // Near-dates: right shape, wrong pieces.
      fc
        .tuple(fc.constantFrom(...DAYS, 'Xyz'), fc.integer({ min: -5, max: 40 }), fc.constantFrom(...MONTHS, 'Foo'), fc.integer({ min: -1, max: 10_000 }), fc.nat(70), fc.nat(70), fc.nat(70))
        .map(([d, day, mon, y, h, m, s]) => `${d}, ${two(day)} ${mon} ${String(y).padStart(4, '0')} ${two(h)}:${two(m)}:${two(s)} GMT`),
    ];
    for (const arbitrary of arbitraries) {
      fc.assert(
        fc.property(arbitrary, fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), (text, max, now) => {
          const value = parseRetryAfter(text, { now, max });
          return isSafeWait(value, max);
        }),
        { numRuns: FC_RUNS },
      );
    }
  });

  it(`reads delay-seconds exactly, clamped to max (${FC_RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 2 ** 40 }), fc.constantFrom('', ' ', '\t', '  '), (seconds, max, pad) => {
        expect(parseRetryAfter(`${pad}${seconds}${pad}`, { now: NOW, max })).toBe(Math.min(seconds * 1000, max));
      }),
      { numRuns: FC_RUNS },
    );
  });

  it(`reads all three HTTP-date forms exactly, for any second of years 1-9999 (${FC_RUNS} runs)`, () => {
    const year1 = new Date(0);
    year1.setUTCFullYear(1, 0, 1);
    const YEAR_1 = year1.getTime();
    fc.assert(
      fc.property(
        fc.integer({ min: Math.ceil(YEAR_1 / 1000) + 1, max: Date.UTC(9999, 11, 31, 23, 59, 59) / 1000 }),
        fc.integer({ min: -(2 ** 45), max: 2 ** 45 }),
        (seconds, now) => {
          const date = new Date(seconds * 1000);
          const wait = (at: number): number => Math.min(Math.max(0, at - now), 2 ** 50);
          const [y, mo, d, h, m, s] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
          const time = `${two(h)}:${two(m)}:${two(s)}`;
          const imf = `${DAYS[date.getUTCDay()]}, ${two(d)} ${MONTHS[mo]} ${String(y).padStart(4, '0')} ${time} GMT`;
          const asctime = `${DAYS[date.getUTCDay()]} ${MONTHS[mo]} ${String(d).padStart(2, ' ')} ${time} ${String(y).padStart(4, '0')}`;
          expect(parseRetryAfter(imf, { now, max: 2 ** 50 }), imf).toBe(wait(date.getTime()));
          expect(parseRetryAfter(asctime, { now, max: 2 ** 50 }), asctime).toBe(wait(date.getTime()));
          // RFC 850: a two-digit year, read as the nearest one at most 50 years after `now`.
          if (y >= 1970 && y <= 2100) {
            const rfc850 = `${LONG_DAYS[date.getUTCDay()]}, ${two(d)}-${MONTHS[mo]}-${two(y % 100)} ${time} GMT`;
            const value = parseRetryAfter(rfc850, { now: date.getTime() - 1000, max: 2 ** 50 });
            expect(value, rfc850).toBe(1000);
          }
        },
      ),
      { numRuns: FC_RUNS },
    );
  });

  it(`reads RFC 850 two-digit years as the latest such year at most 50 years ahead (${FC_RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 1970, max: 2300 }), fc.integer({ min: -49, max: 49 }), fc.nat(364), fc.nat(86_399), (year, yearsAhead, dayOfYear, second) => {
        const now = Date.UTC(year, 0, 1) + dayOfYear * 86_400_000 + second * 1000;
        const date = new Date(Date.UTC(year + yearsAhead, 6, 15, 12, 0, 0));
        const text = `${LONG_DAYS[date.getUTCDay()]}, 15-Jul-${two(date.getUTCFullYear() % 100)} 12:00:00 GMT`;
        expect(parseRetryAfter(text, { now, max: 2 ** 50 }), `${text} at ${new Date(now).toISOString()}`).toBe(Math.max(0, date.getTime() - now));
      }),
      { numRuns: FC_RUNS },
    );
    // The century boundary (regression): read as 2000, not 1900; as 2105, not 2005.
    expect(parseRetryAfter('Saturday, 01-Jan-00 00:00:00 GMT', { now: Date.UTC(1999, 11, 31, 23, 59, 59), max: 2 ** 50 })).toBe(1000);
    expect(parseRetryAfter('Sunday, 01-Jan-05 00:00:00 GMT', { now: Date.UTC(2060, 0, 1), max: 2 ** 50 })).toBe(Date.UTC(2105, 0, 1) - Date.UTC(2060, 0, 1));
  });

  it('reads years 0-99 as themselves, not as 1900-1999 (regression)', () => {
    const now = Date.UTC(1940, 0, 1);
    const year50 = new Date(0);
    year50.setUTCFullYear(50, 0, 1);
    // Year 50 is long before 1940: the wait is 0, not the ten years until 1950.
    expect(parseRetryAfter('Sat, 01 Jan 0050 00:00:00 GMT', { now, max: 2 ** 50 })).toBe(0);
    expect(parseRetryAfter('Sat, 01 Jan 0050 00:00:00 GMT', { now: year50.getTime() - 5000, max: 2 ** 50 })).toBe(5000);
    // 0 is a leap year in the proleptic Gregorian calendar (1900 is not): 29 Feb 0000 is a real date.
    expect(parseRetryAfter('Tue, 29 Feb 0000 00:00:00 GMT', { now: 0 })).toBe(0);
  });

  it('refuses options that would make any header a NaN, negative or infinite wait (regression)', () => {
    for (const max of [NaN, -1, Infinity, -Infinity]) {
      expect(() => parseRetryAfter('5', { max }), `max ${max}`).toThrow(new TypeError('Expected `max` to be a finite number >= 0'));
    }
    for (const now of [NaN, Infinity, -Infinity]) {
      expect(() => parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', { now }), `now ${now}`).toThrow(new TypeError('Expected `now` to be a finite number'));
    }
    // Bad options are refused whatever the header says, absent included: the mistake is the caller's either way.
    expect(() => parseRetryAfter(null, { max: NaN })).toThrow(new TypeError('Expected `max` to be a finite number >= 0'));
  });
});
