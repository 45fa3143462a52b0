import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/kit/index.js';

const now = Date.UTC(2015, 9, 21, 7, 27, 0); // Wed, 21 Oct 2015 07:27:00 GMT

describe('parseRetryAfter', () => {
  it('reads digits as seconds, after trimming', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter('  5 ')).toBe(5000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('007')).toBe(7000);
  });

  it('reads an IMF-fixdate as the time until then', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', { now })).toBe(60_000);
  });

  it('reads the obsolete RFC 850 and asctime forms', () => {
    expect(parseRetryAfter('Wednesday, 21-Oct-15 07:28:30 GMT', { now })).toBe(90_000);
    expect(parseRetryAfter('Wed Oct 21 07:29:00 2015', { now })).toBe(120_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', { now: Date.UTC(1994, 10, 6, 8, 49, 0) })).toBe(37_000);
  });

  it('reads RFC 850 two-digit years as at most 50 years ahead', () => {
    const in1999 = Date.UTC(1999, 0, 1);
    expect(parseRetryAfter('Friday, 01-Jan-99 00:00:10 GMT', { now: in1999 })).toBe(10_000);
    // "94" seen in 2015 is 1994, in the past: clamped to 0.
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', { now })).toBe(0);
  });

  it('clamps a date in the past to 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', { now })).toBe(0);
  });

  it('clamps both forms to max (default 300000)', () => {
    expect(parseRetryAfter('86400')).toBe(300_000);
    expect(parseRetryAfter('99999999999')).toBe(300_000);
    expect(parseRetryAfter('9'.repeat(400))).toBe(300_000);
    expect(parseRetryAfter('Thu, 22 Oct 2015 07:27:00 GMT', { now })).toBe(300_000);
    expect(parseRetryAfter('30', { max: 10_000 })).toBe(10_000);
  });

  it.each([
    [''],
    ['   '],
    ['-5'],
    ['1.5'],
    ['1e3'],
    ['+5'],
    ['5 s'],
    ['soon'],
    ['２'],
    ['2015-10-21T07:28:00Z'],
    ['Wed, 21 Oct 2015 07:28:00 UTC'],
    ['Wed, 31 Feb 2015 07:28:00 GMT'],
    ['Wed, 21 Oct 2015 25:28:00 GMT'],
    ['wed, 21 oct 2015 07:28:00 gmt'],
  ])('returns null for %j', (value) => {
    expect(parseRetryAfter(value, { now })).toBeNull();
  });

  it('returns null for null and undefined', () => {
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});
