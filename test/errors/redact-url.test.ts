import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/kit/index.js';
import { FC_RUNS } from '../property/runs.js';

// redactUrl is the one rule for a URL in anything a log may see: pollite's
// error messages and the CLI's output alike. Userinfo, query values and the
// fragment go; scheme, host, port, path and query names stay.

describe('redactUrl: userinfo, query values and fragment become ***', () => {
  it.each([
    ['https://api.example.com/jobs/42?api_key=SECRET&sig=SECRET2', 'https://api.example.com/jobs/42?api_key=***&sig=***'],
    ['https://user:pass@api.example.com/', 'https://***@api.example.com/'],
    ['https://user:pass@h/x?a=1#access_token=SECRET', 'https://***@h/x?a=***#***'],
    ['https://h/cb#access_token=SECRET&state=x', 'https://h/cb#***'],
    ['https://h/x?token', 'https://h/x?***'],
    ['https://h/x?a=&b==c&&d', 'https://h/x?a=***&b=***&&***'],
    ['https://h/x?', 'https://h/x?'],
    ['https://h/x#', 'https://h/x#'],
    ['https://h/x?q=a#b?c=d', 'https://h/x?q=***#***'],
    ['https://h/x?email=a@b.test', 'https://h/x?email=***'],
    ['http://127.0.0.1:3000/users/@me', 'http://127.0.0.1:3000/users/@me'],
    ['https://example.test/', 'https://example.test/'],
    ['data:application/json,{"a":1}', 'data:application/json,{"a":1}'],
    // Text the parser refuses, redacted by its shape.
    ['api.example.com/jobs?api_key=SECRET', 'api.example.com/jobs?api_key=***'],
    ['user:hunter2@host/', '***@host/'],
    ['ftp://user:hunter2@host/a', 'ftp://***@host/a'],
    ['ws://user:hunter2@host/', 'ws://***@host/'],
    ['wss://user:hunter2@host/', 'wss://***@host/'],
    ['//user:hunter2@host/', '//***@host/'],
    ['sftp://user:hunter2@host/', 'sftp://***@host/'],
    ['http://user:hun/ter2@host/', 'http://***@host/'],
    ['http:\\\\user:hunter2@host/', 'http://***@host/'],
    ['https://TOKEN@host/', 'https://***@host/'],
    ["ftp://user:hun'ter 2@host/", 'ftp://***@host/'],
    ['--proxy=http://user:hun/ter2@host/', '--proxy=http://***@host/'],
    ['user:hun//ter2@host/', '***@host/'],
    ['user:hun=//ter2@host/', '***@host/'],
    ['http://user:hun//ter2@host/', 'http://***@host/'],
    ['http://user:a#b@host/?k=v', 'http://***@host/?k=***'],
  ])('%j is %j, and stays so redacted again', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
    expect(redactUrl(redacted)).toBe(redacted);
  });

  it('takes a URL object as its href', () => {
    expect(redactUrl(new URL('https://u:p@h/x?k=v#f'))).toBe('https://***@h/x?k=***#***');
  });

  it(`leaves no secret of a generated URL, and is idempotent (${FC_RUNS} runs)`, () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).map((s) => `S3CR3T${s}`);
    const name = fc.stringMatching(/^[a-z_]{1,8}$/);
    fc.assert(
      fc.property(
        fc.record({
          scheme: fc.constantFrom('http', 'https', 'ftp', 'ws', 'foo'),
          user: fc.option(secret, { nil: undefined }),
          password: fc.option(secret, { nil: undefined }),
          path: fc.stringMatching(/^(\/[a-z0-9@]{0,6}){0,3}$/),
          query: fc.array(fc.tuple(name, secret), { maxLength: 4 }),
          fragment: fc.option(secret, { nil: undefined }),
        }),
        ({ scheme, user, password, path, query, fragment }) => {
          const userinfo = user === undefined && password === undefined ? '' : `${user ?? ''}${password === undefined ? '' : `:${password}`}@`;
          const url = `${scheme}://${userinfo}host.test${path}${query.length ? `?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : ''}${fragment === undefined ? '' : `#${fragment}`}`;
          const redacted = redactUrl(url);
          expect(redacted).not.toContain('S3CR3T');
          for (const [k] of query) expect(redacted).toContain(`${k}=***`);
          expect(redactUrl(redacted)).toBe(redacted);
        },
      ),
      { numRuns: FC_RUNS },
    );
  });
});
