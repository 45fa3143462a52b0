import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../src/http/http-date.js';

describe('parseHttpDate: the bounds of each field', () => {
  it('reads an RFC 850 two-digit year as the latest with those digits at most 50 years ahead, both ends included', () => {
    const in2026 = Date.UTC(2026, 5, 1);
    // 2076 is exactly 50 years ahead: still ahead, not 1976.
    expect(parseHttpDate('Sunday, 01-Jan-76 00:00:00 GMT', in2026)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Monday, 01-Jan-77 00:00:00 GMT', in2026)).toBe(Date.UTC(1977, 0, 1));
    const in2060 = Date.UTC(2060, 5, 1);
    // 2110 is exactly 50 years ahead of 2060: the century after, not 2010; 2111 is past the window.
    expect(parseHttpDate('Friday, 01-Jan-10 00:00:00 GMT', in2060)).toBe(Date.UTC(2110, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-11 00:00:00 GMT', in2060)).toBe(Date.UTC(2011, 0, 1));
  });

  it('reads every month of each form', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    months.forEach((month, i) => {
      expect(parseHttpDate(`Sun, 05 ${month} 2026 01:02:03 GMT`, 0)).toBe(Date.UTC(2026, i, 5, 1, 2, 3));
      expect(parseHttpDate(`Sunday, 05-${month}-26 01:02:03 GMT`, Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, i, 5, 1, 2, 3));
      expect(parseHttpDate(`Sun ${month}  5 01:02:03 2026`, 0)).toBe(Date.UTC(2026, i, 5, 1, 2, 3));
    });
    expect(parseHttpDate('Sun, 05 Jnu 2026 01:02:03 GMT', 0)).toBeNull();
  });

  it('refuses minutes past 59 and seconds past 60 (which a Date would roll over or clamp), and reads a leap second as :59', () => {
    expect(parseHttpDate('Wed, 21 Oct 2015 07:59:00 GMT', 0)).toBe(Date.UTC(2015, 9, 21, 7, 59, 0));
    expect(parseHttpDate('Wed, 21 Oct 2015 07:60:00 GMT', 0)).toBeNull();
    expect(parseHttpDate('Wed, 21 Oct 2015 07:75:00 GMT', 0)).toBeNull();
    expect(parseHttpDate('Wed, 21 Oct 2015 07:28:60 GMT', 0)).toBe(Date.UTC(2015, 9, 21, 7, 28, 59));
    expect(parseHttpDate('Wed, 21 Oct 2015 07:28:61 GMT', 0)).toBeNull();
    expect(parseHttpDate('Wed, 21 Oct 2015 07:28:99 GMT', 0)).toBeNull();
    expect(parseHttpDate('Wed, 21 Oct 2015 23:59:59 GMT', 0)).toBe(Date.UTC(2015, 9, 21, 23, 59, 59));
    expect(parseHttpDate('Wed, 21 Oct 2015 24:00:00 GMT', 0)).toBeNull();
    expect(parseHttpDate('Wed, 00 Oct 2015 07:28:00 GMT', 0)).toBeNull();
  });
});
