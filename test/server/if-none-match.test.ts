import { describe, expect, it } from 'vitest';
import { evaluateIfNoneMatch } from '../../src/server/index.js';

const ETAG = '"abc"';

describe('evaluateIfNoneMatch (RFC 9110 §13.1.2, weak comparison)', () => {
  it.each([
    ['"abc"', 'match'],
    ['W/"abc"', 'match'],
    ['*', 'match'],
    [' * ', 'match'],
    ['"x", "abc"', 'match'],
    ['"x",W/"abc"', 'match'],
    ['"x" , , "abc" ,', 'match'],
    ['"x"', 'no-match'],
    ['W/"x", "y"', 'no-match'],
    ['"ABC"', 'no-match'],
    ['""', 'no-match'],
  ] as const)('%s → %s', (header, expected) => {
    expect(evaluateIfNoneMatch(header, ETAG)).toBe(expected);
  });

  it('matches a weak current ETag as well', () => {
    expect(evaluateIfNoneMatch('"abc"', 'W/"abc"')).toBe('match');
  });

  it('treats an absent header as no match', () => {
    expect(evaluateIfNoneMatch(null, ETAG)).toBe('no-match');
  });

  it.each([
    'abc', // unquoted
    '"abc', // unterminated
    'w/"abc"', // lower-case weak prefix
    '"abc" "def"', // missing comma
    '"a b"', // space is not an etagc
    '"abc", *', // * only alone
    '',
    ' , ',
    'W/',
    '"abc"x',
  ])('calls %j malformed', (header) => {
    expect(evaluateIfNoneMatch(header, ETAG)).toBe('malformed');
  });
});

describe('evaluateIfNoneMatch on long fields', () => {
  /**
   * The least time, ms, that `run` takes over 7 tries (the least is the one least disturbed by GC or
   * the scheduler), or over those that fit in a second: a regression fails in seconds, not minutes.
   */
  const leastTime = (run: () => void): number => {
    let least = Infinity;
    for (let trial = 0, spent = 0; trial < 7 && spent < 1000; trial += 1) {
      const started = performance.now();
      run();
      const time = performance.now() - started;
      least = Math.min(least, time);
      spent += time;
    }
    return least;
  };

  // A run of spaces inside a list (not at its end) made the OWS trim backtrack: 64,000 spaces took 3.5 s.
  it('costs no more per character in one 64 KiB field than in 64 fields of 1 KiB (it cost 50× more: 5.9 s)', () => {
    const field = (spaces: number): string => `"x",${' '.repeat(spaces)}${ETAG}`;
    const small = field(1024 - 4 - ETAG.length);
    const large = field(65_536 - 4 - ETAG.length);
    expect([small.length, large.length]).toEqual([1024, 65_536]);
    expect([evaluateIfNoneMatch(small, ETAG), evaluateIfNoneMatch(large, ETAG)]).toEqual(['match', 'match']);
    const sixtyFourSmall = leastTime(() => {
      for (let i = 0; i < 64; i += 1) evaluateIfNoneMatch(small, ETAG);
    });
    const oneLarge = leastTime(() => evaluateIfNoneMatch(large, ETAG));
    // Linear: a ratio near 1 (less, as 64 calls cost 64 call overheads). Quadratic: 64.
    expect(oneLarge / sixtyFourSmall).toBeLessThan(8);
  });

  it('reads a field of up to 64 KiB; a longer one is malformed unread, even when it names the ETag', () => {
    const naming = (length: number): string => `${' '.repeat(length - ETAG.length)}${ETAG}`;
    expect(evaluateIfNoneMatch(naming(65_536), ETAG)).toBe('match');
    expect(evaluateIfNoneMatch(naming(65_537), ETAG)).toBe('malformed');
    expect(evaluateIfNoneMatch(` ${'\t'.repeat(65_536)}*`, ETAG)).toBe('malformed');
    expect(evaluateIfNoneMatch(naming(1024 * 1024), ETAG)).toBe('malformed');
  });

  it.each([' \t*\t ', '\t*', '* '])('treats %j, a star between OWS, as a match', (header) => {
    expect(evaluateIfNoneMatch(header, ETAG)).toBe('match');
  });

  it.each(['\v*', '*\f', '\u00a0*', '**', '* *', '*,'])('calls %j malformed', (header) => {
    expect(evaluateIfNoneMatch(header, ETAG)).toBe('malformed');
  });
});
