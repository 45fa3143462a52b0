import { describe, expect, it } from 'vitest';
import { isRetryableError } from '../../src/index.js';

// A redirect loop looks like the network's failure (undici says `fetch failed`, its cause
// `redirect count exceeded`) but every try follows the loop again: never retried. Pinned here,
// by the policy's own tests (the mutation run of src/policy found it covered only by the hostile
// server's tests).

const fetchFailed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });

describe('isRetryableError: a redirect loop is hopeless', () => {
  it("refuses undici's `fetch failed` whose cause is `redirect count exceeded`, though `fetch failed` alone is retried", () => {
    expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
    expect(isRetryableError(fetchFailed(new TypeError('redirect count exceeded')))).toBe(false);
  });

  it('refuses it whatever network code travels with it, at any depth of the cause chain, in any case', () => {
    const looped = Object.assign(new Error('too many redirects'), { code: 'ECONNRESET' });
    expect(isRetryableError(looped)).toBe(false);
    expect(isRetryableError(new Error('outer', { cause: fetchFailed(new Error('Too Many Redirects')) }))).toBe(false);
    // The same chain without the loop is a network failure.
    expect(isRetryableError(new Error('outer', { cause: fetchFailed(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })) }))).toBe(true);
  });

  it('a message that is not a string is no redirect loop', () => {
    expect(isRetryableError(Object.assign(new Error('x'), { message: 42, code: 'ECONNRESET' }))).toBe(true);
  });
});
