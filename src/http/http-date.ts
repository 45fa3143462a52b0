const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d\\d) ${TIME} (\\d{4})$`);

const toEpoch = (year: number, month: string, day: number, h: number, m: number, s: number): number | null => {
  const monthIndex = MONTHS.indexOf(month) / 3;
  if (h > 23 || m > 59 || s > 60 || day < 1) return null;
  // Not Date.UTC, which reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(h, m, Math.min(s, 59), 0);
  // Rejects 31 Feb and friends, which Date would roll over silently.
  return date.getUTCDate() === day ? date.getTime() : null;
};

/**
 * Parses an HTTP-date in any of the three forms RFC 9110 requires recipients
 * to accept; `null` for anything else (ISO 8601 included). `now` only serves
 * RFC 850's two-digit years, read as at most 50 years ahead.
 */
export function parseHttpDate(value: string, now: number): number | null {
  let match = IMF_FIXDATE.exec(value);
  if (match) return toEpoch(+match[3]!, match[2]!, +match[1]!, +match[4]!, +match[5]!, +match[6]!);
  match = ASCTIME.exec(value);
  if (match) return toEpoch(+match[6]!, match[1]!, +match[2]!, +match[3]!, +match[4]!, +match[5]!);
  match = RFC_850.exec(value);
  if (!match) return null;
  const thisYear = new Date(now).getUTCFullYear();
  let year = thisYear - (thisYear % 100) + +match[3]!;
  // RFC 9110: the latest year with those two digits that is at most 50 years ahead.
  if (year > thisYear + 50) year -= 100;
  else if (year + 100 <= thisYear + 50) year += 100;
  return toEpoch(year, match[2]!, +match[1]!, +match[4]!, +match[5]!, +match[6]!);
}
