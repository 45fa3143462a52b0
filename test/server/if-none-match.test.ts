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
