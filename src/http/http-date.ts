const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';

/**
 * RFC 9110 §5.6.7's three forms in one expression, each with its own groups:
 * IMF-fixdate (1-6: day, month, year, time), the obsolete RFC 850 (7-12, a
 * two-digit year) and asctime (13-18: month, day, time, year).
 */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT|${DAY} ${MONTH} ( \\d|\\d\\d) ${TIME} (\\d{4}))$`,
);

/** RFC 850's two-digit year: the latest year with those digits that is at most 50 years after `now`'s. */
const fullYear = (twoDigits: number, now: number): number => {
  const thisYear = new Date(now).getUTCFullYear();
  const year = thisYear - (thisYear % 100) + twoDigits;
  return year > thisYear + 50 ? year - 100 : year + 100 <= thisYear + 50 ? year + 100 : year;
};

/**
 * Parses an HTTP-date in any of the three forms RFC 9110 requires recipients
 * to accept; `null` for anything else (ISO 8601 included). `now` only serves
 * RFC 850's two-digit years, read as at most 50 years ahead.
 */
export function parseHttpDate(value: string, now: number): number | null {
  const m = HTTP_DATE.exec(value);
  if (!m) return null;
  const [day, month, year, h, min, s] = m[1]
    ? [m[1], m[2]!, +m[3]!, m[4], m[5], m[6]]
    : m[7]
      ? [m[7], m[8]!, fullYear(+m[9]!, now), m[10], m[11], m[12]]
      : [m[14], m[13]!, +m[18]!, m[15], m[16], m[17]];
  if (+h! > 23 || +min! > 59 || +s! > 60 || +day! < 1) return null;
  // Not Date.UTC, which reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, (MONTH.indexOf(month) - 1) / 4, +day!);
  date.setUTCHours(+h!, +min!, Math.min(+s!, 59), 0);
  // Rejects 31 Feb and friends, which Date would roll over silently.
  return date.getUTCDate() === +day! ? date.getTime() : null;
}
