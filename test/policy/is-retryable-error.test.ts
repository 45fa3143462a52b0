import { describe, expect, it } from 'vitest';
import { HttpError, isRetryableError } from '../../src/index.js';

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });
const fetchFailed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });
/** An error as another realm (iframe, worker, second copy) would make it: same name, other class. */
const foreign = (name: string, message: string, extra: object = {}): object => Object.assign(Object.create(null), { name, message, ...extra });

describe('isRetryableError', () => {
  it.each([
    ['undici ECONNRESET', fetchFailed(withCode('ECONNRESET', 'read ECONNRESET'))],
    ['undici ECONNREFUSED (AggregateError)', fetchFailed(Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: 'ECONNREFUSED' }))],
    ['undici socket', fetchFailed(withCode('UND_ERR_SOCKET', 'other side closed'))],
    ['undici connect timeout', fetchFailed(withCode('UND_ERR_CONNECT_TIMEOUT'))],
    ['undici headers timeout', fetchFailed(withCode('UND_ERR_HEADERS_TIMEOUT'))],
    ['undici without a cause', new TypeError('fetch failed')],
    ['node ETIMEDOUT', withCode('ETIMEDOUT')],
    ['node EPIPE', withCode('EPIPE')],
    ['node EAI_AGAIN', withCode('EAI_AGAIN')],
    ['nested cause', new Error('wrapped', { cause: fetchFailed(withCode('ECONNRESET')) })],
    ['chromium', new TypeError('Failed to fetch')],
    ['firefox', new TypeError('NetworkError when attempting to fetch resource.')],
    ['safari', new TypeError('Load failed')],
    // Shapes seen from Deno 2 and Bun 1.3 against a closed port and a reset socket on 127.0.0.1:
    ['deno 2 refused', fetchFailed(new Error('error sending request for url (http://127.0.0.1:36369/): client error (Connect): tcp connect error: Connection refused (os error 111)'))],
    ['deno 2 reset', fetchFailed(new Error('error sending request for url (http://127.0.0.1:34859/): client error (SendRequest): connection closed before message completed'))],
    ['deno 1', new TypeError('error sending request for url (http://127.0.0.1:1/): error trying to connect: tcp connect error: Connection refused (os error 111)')],
    ['bun refused', Object.assign(new TypeError('ECONNREFUSED: Unable to connect. Is the computer able to access the url?'), { code: 'ECONNREFUSED' })],
    ['bun reset', Object.assign(new TypeError('ECONNRESET: The socket connection was closed unexpectedly.'), { code: 'ECONNRESET' })],
    ['older bun refused', withCode('ConnectionRefused', 'Unable to connect. Is the computer able to access the url?')],
    ['older bun closed', withCode('ConnectionClosed', 'The socket connection was closed unexpectedly.')],
    ['bun message without a code', new TypeError('Unable to connect. Is the computer able to access the url?')],
    ['per-attempt timeout', new DOMException('Attempt timed out', 'TimeoutError')],
    ['HttpError 503', new HttpError(new Response(null, { status: 503 }), 'http://x/')],
    ['HttpError 429', new HttpError(new Response(null, { status: 429 }), 'http://x/')],
    ['foreign TypeError', foreign('TypeError', 'Failed to fetch')],
    ['foreign HttpError 502', foreign('HttpError', 'HTTP 502', { status: 502 })],
    ['foreign TimeoutError', foreign('TimeoutError', 'timed out')],
  ])('true for %s', (_label, error) => {
    expect(isRetryableError(error)).toBe(true);
  });

  it.each([
    ['AbortError', new DOMException('aborted', 'AbortError')],
    ['foreign AbortError', foreign('AbortError', 'This operation was aborted')],
    ['HttpError 404', new HttpError(new Response(null, { status: 404 }), 'http://x/')],
    ['HttpError 400', new HttpError(new Response(null, { status: 400 }), 'http://x/')],
    ['unknown DNS name', fetchFailed(withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND nope.invalid'))],
    ['undici bad argument', fetchFailed(withCode('UND_ERR_INVALID_ARG'))],
    ['bad URL', new TypeError('Failed to parse URL from nope')],
    ['a bug', new RangeError('Invalid array length')],
    ['a plain TypeError', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a string', 'fetch failed'],
    ['null', null],
    ['undefined', undefined],
  ])('false for %s', (_label, error) => {
    expect(isRetryableError(error)).toBe(false);
  });

  it('looks four levels deep at most, on the cause chain and in AggregateError members', () => {
    const wrapped = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : wrapped(levels - 1, new Error(`level ${levels}`, { cause: inner })));
    expect(isRetryableError(wrapped(4, withCode('ECONNRESET')))).toBe(true);
    expect(isRetryableError(wrapped(5, withCode('ECONNRESET')))).toBe(false);
    // A later member, not the first, carries the code; the AggregateError itself none.
    expect(isRetryableError(fetchFailed(new AggregateError([new Error('first'), withCode('ECONNREFUSED')])))).toBe(true);
    expect(isRetryableError(new AggregateError([new Error('a'), new AggregateError([new Error('b'), new AggregateError([new Error('c'), withCode('EPIPE')])])]))).toBe(true);
  });

  it('never retries an abort, even one whose message or cause reads like a network failure', () => {
    expect(isRetryableError(foreign('AbortError', 'terminated'))).toBe(false);
    expect(isRetryableError(new DOMException('fetch failed', 'AbortError'))).toBe(false);
    expect(isRetryableError(foreign('AbortError', 'aborted', { cause: withCode('ECONNRESET') }))).toBe(false);
  });

  it("takes undici's ERR_ASSERTION for a malformed answer only inside fetch's own error, never a bare assertion", () => {
    expect(isRetryableError(fetchFailed(withCode('ERR_ASSERTION', 'The expression evaluated to a falsy value')))).toBe(true);
    expect(isRetryableError(withCode('ERR_ASSERTION', 'Expected values to be strictly equal'))).toBe(false);
  });

  it('survives a cyclic AggregateError', () => {
    const aggregate = new AggregateError([]) as AggregateError & { errors: unknown[] };
    aggregate.errors.push(aggregate);
    expect(isRetryableError(aggregate)).toBe(false);
  });

  it('survives a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(isRetryableError(a)).toBe(false);
  });
});
