import { describe, expect, it } from 'vitest';
import { redactCredentials } from '../../src/cli/redact-credentials.js';

// The CLI's free text (errors, usage errors echoing an argument) goes
// through redactCredentials, which applies pollite's own URL rule to each
// token that may hold a secret.

describe('redactCredentials: every URL-ish token of a message, by the library\'s rule', () => {
  it('redacts userinfo, quoted or not', () => {
    expect(redactCredentials("'ftp://u:hunter2@h/' is not an http(s) URL, nor is //a:b@c")).toBe("'ftp://***@h/' is not an http(s) URL, nor is //***@c");
    expect(redactCredentials('no credentials here: http://h/')).toBe('no credentials here: http://h/');
  });

  it('redacts query values and fragments, names kept', () => {
    expect(redactCredentials("unknown option '--hook=https://h/x?api_key=SECRET&sig=SECRET2#t=SECRET3'")).toBe("unknown option '--hook=https://h/x?api_key=***&sig=***#***'");
    expect(redactCredentials('HTTP 404 from https://h/x?k=SECRET (gone)')).toBe('HTTP 404 from https://h/x?k=*** (gone)');
  });

  it('leaves prose alone: a question mark, a lone #, words', () => {
    expect(redactCredentials('did you mean http://h/ ? see issue # 33, or #')).toBe('did you mean http://h/ ? see issue # 33, or #');
    expect(redactCredentials('')).toBe('');
  });

  it('reads a 100,000-character message in linear time', () => {
    for (const text of ['a'.repeat(100_000), `${'a'.repeat(100_000)}@`, '@'.repeat(100_000), `${'x?'.repeat(50_000)}`]) {
      const started = performance.now();
      expect(redactCredentials(text).length).toBeGreaterThan(0);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });
});
