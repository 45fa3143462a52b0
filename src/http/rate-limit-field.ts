/** One quota a `RateLimit` field announces, as written: requests left, and seconds until it resets; `null` when unsaid or malformed. */
export interface Quota {
  /** Requests left: a non-negative integer, or `null`. */
  remaining: number | null;
  /** Seconds until the quota resets: a non-negative decimal, or `null`. */
  reset: number | null;
}

/** What a `RateLimit` field says: the quota that binds, and the slowest pace any of its quotas allows. */
export interface QuotaField extends Quota {
  /**
   * The longest `reset / (remaining + 1)` of every quota that says both, in
   * seconds: the pace at which no quota runs out before its window resets
   * (the draft: a client "SHOULD NOT exceed the quota units conveyed by the
   * remaining keyword before the time window"); `null` when none says both.
   */
  pace: number | null;
}

/** A non-negative decimal number, or null (so `-1`, `1e3`, `0x10` and garbage are ignored). */
export const decimal = (text: string | null | undefined): number | null => (text && /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : null);

/** A non-negative integer, or null (a count past 2^1024, Infinity as a number, included: no limiter counts that far). */
export const integer = (text: string | null | undefined): number | null => {
  const count = text && /^\d+$/.test(text.trim()) ? Number(text) : Infinity;
  return count < Infinity ? count : null;
};

/** Whether `a` binds harder than `b`: fewer requests left (unsaid counts as plenty), then the later reset (unsaid counts as none). */
const binds = (a: Quota, b: Quota): boolean => {
  const left = (a.remaining ?? Infinity) - (b.remaining ?? Infinity);
  return left < 0 || ((left === 0 || Number.isNaN(left)) && (a.reset ?? -1) > (b.reset ?? -1));
};

/** The parameters of one list member (or draft-7 member) seen so far: the raw value of each key pollite reads, first one wins. */
type Seen = Partial<Record<'r' | 't' | 'remaining' | 'reset', string>>;

/** Reads one `key=value` segment into `seen`; an item (`"burst"`, `default`) or another key adds nothing. */
function readSegment(segment: string, seen: Seen): void {
  const eq = segment.indexOf('=');
  const key = segment.slice(0, eq).trim();
  if (eq > 0 && (key === 'r' || key === 't' || key === 'remaining' || key === 'reset')) seen[key] ??= segment.slice(eq + 1);
}

/**
 * The quota that binds among those a `RateLimit` field announces: the one
 * with the fewest requests left, and among those the one that resets last
 * (with `"burst";r=4;t=1, "day";r=0;t=3600`, the day's: nothing can be sent
 * for an hour, whatever the burst allows).
 *
 * Both dialects are comma-separated, and are told apart by their keys:
 *
 * - draft-8 and later, a list of quotas, each an item (a string or a token
 *   naming the policy) with `r` and `t` parameters:
 *   `"burst";r=4;t=1, "day";r=0;t=3600`. A member with either is a quota;
 * - draft-7, one quota spread over a dictionary: `limit=10, remaining=0,
 *   reset=5`. Its `remaining` and `reset`, wherever they stand, make one
 *   more quota.
 *
 * Quoted strings are skipped whole (a policy named `"a,r=0"` says nothing),
 * the first of a repeated key counts, and one pass reads the field, so
 * hostile text costs linear time. Empty quotas when nothing is said.
 * `pace` is the slowest pace of every quota: with `"burst";r=1;t=1,
 * "day";r=9;t=3600` the burst binds, but the day's 360 s between requests
 * is the pace that spends neither before its window ends.
 *
 * @example
 * rateLimitQuota('"burst";r=4;t=1, "day";r=0;t=3600'); // { remaining: 0, reset: 3600, pace: 3600 }
 */
export function rateLimitQuota(field: string): QuotaField {
  let bound: Quota = { remaining: null, reset: null };
  let pace: number | null = null;
  const paced = (quota: Quota): void => {
    if (quota.remaining !== null && quota.reset !== null) pace = Math.max(pace ?? 0, quota.reset / (quota.remaining + 1));
  };
  const draft7: Seen = {};
  let member: Seen = {};
  let from = 0;
  for (let i = 0; ; i += 1) {
    const char = field[i];
    if (char === '"') {
      // A quoted string: i stops on its closing quote (escapes skipped), or past the end.
      for (i += 1; i < field.length && field[i] !== '"'; i += 1) if (field[i] === '\\') i += 1;
      continue;
    }
    if (char !== ';' && char !== ',' && char !== undefined) continue;
    readSegment(field.slice(from, i), member);
    from = i + 1;
    if (char === ';') continue;
    // A member without `r` or `t` is a quota that says nothing, and never binds.
    const quota = { remaining: integer(member.r), reset: decimal(member.t) };
    if (binds(quota, bound)) bound = quota;
    paced(quota);
    draft7.remaining ??= member.remaining;
    draft7.reset ??= member.reset;
    if (char === undefined) break;
    member = {};
  }
  const dictionary = { remaining: integer(draft7.remaining), reset: decimal(draft7.reset) };
  paced(dictionary);
  return { ...(binds(dictionary, bound) ? dictionary : bound), pace };
}
