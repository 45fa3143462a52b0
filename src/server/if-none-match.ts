/**
 * How an `If-None-Match` field value relates to the current representation:
 * `match` (answer 304 to GET and HEAD), `no-match`, or `malformed`, which a
 * server treats as absent (a normal 200), never as an error.
 */
export type IfNoneMatchResult = 'match' | 'no-match' | 'malformed';

// RFC 9110 §8.8.3: etagc = %x21 / %x23-7E / obs-text (%x80-FF).
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;
// `*` alone between OWS. Anchored, with one `*` between two runs, so it is linear in the length.
const STAR = /^[ \t]*\*[ \t]*$/;
/** Longer than any list of tags a cache or poller sends (Node refuses headers over 16 KiB by default). */
const MAX_LENGTH = 65_536;

const isOWS = (char: string | undefined): boolean => char === ' ' || char === '\t';

/** The opaque-tag of an entity tag, without its `W/` prefix; null when it is not one. */
const opaqueTag = (entityTag: string): string | null => {
  const tag = entityTag.startsWith('W/') ? entityTag.slice(2) : entityTag;
  return tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') && ETAGC.test(tag.slice(1, -1)) ? tag : null;
};

/**
 * Evaluates `If-None-Match` (RFC 9110 §13.1.2) against the current ETag with
 * the weak comparison the RFC prescribes: `W/"x"` matches `"x"`. Accepts `*`
 * and comma-separated lists (empty list elements allowed, as §5.6.1 says);
 * several field lines arrive joined by `, `, which is the same list. Only
 * OWS (space, tab) separates elements. Each character is read a bounded
 * number of times, and a field over 64 KiB is `malformed` unread.
 *
 * @example
 * evaluateIfNoneMatch('W/"a", "b"', '"b"'); // 'match'
 * evaluateIfNoneMatch('a', '"a"');         // 'malformed' (unquoted)
 */
export function evaluateIfNoneMatch(fieldValue: string | null, currentETag: string): IfNoneMatchResult {
  if (fieldValue === null) return 'no-match';
  if (fieldValue.length > MAX_LENGTH) return 'malformed';
  // No trimming: String#trim would also eat VT, FF and NBSP (which make a field malformed), and a
  // trailing-whitespace regex is quadratic in a run of spaces that is not at the end.
  if (STAR.test(fieldValue)) return 'match';
  const value = fieldValue;
  const current = opaqueTag(currentETag);
  let matched = false;
  let i = 0;
  let sawTag = false;
  while (i < value.length) {
    const char = value[i];
    if (char === ',' || isOWS(char)) {
      i += 1;
      continue;
    }
    const start = i;
    if (value.startsWith('W/', i)) i += 2;
    if (value[i] !== '"') return 'malformed';
    const close = value.indexOf('"', i + 1);
    if (close === -1) return 'malformed';
    const tag = opaqueTag(value.slice(start, close + 1));
    if (tag === null) return 'malformed';
    i = close + 1;
    while (isOWS(value[i])) i += 1;
    if (i < value.length && value[i] !== ',') return 'malformed';
    sawTag = true;
    if (tag === current) matched = true;
  }
  if (!sawTag) return 'malformed';
  return matched ? 'match' : 'no-match';
}
