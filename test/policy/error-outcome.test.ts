import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/index.js';
import { errorOutcome, responseOf } from '../../src/policy/error-outcome.js';

const response = (status: number, headers: Record<string, string> = {}): Response => new Response(null, { status, headers });

describe('errorOutcome: what a thrown error tells retryDecision (shared by retry, fetchWithRetry and the TanStack adapter)', () => {
  it('a carried response is a status with its Retry-After', () => {
    const error = new HttpError(response(503, { 'retry-after': '7' }), 'http://127.0.0.1:1234/x');
    const outcome = errorOutcome(error);
    expect(outcome).toMatchObject({ type: 'status', status: 503 });
    expect(outcome.type === 'status' && outcome.headers.get('retry-after')).toBe('7');
    const bare = errorOutcome({ response: response(429) });
    expect(bare.type === 'status' && [bare.status, bare.headers.get('retry-after')]).toEqual([429, null]);
  });

  it('timeouts: the flag, a TimeoutError, or an ETIMEDOUT-style code anywhere in the cause chain', () => {
    const cause = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    const wrapped = new TypeError('fetch failed', { cause });
    expect(errorOutcome(new Error('x'), true)).toEqual({ type: 'timeout', error: new Error('x') });
    expect(errorOutcome(new DOMException('slow', 'TimeoutError')).type).toBe('timeout');
    expect(errorOutcome(wrapped)).toEqual({ type: 'timeout', error: wrapped });
  });

  it('anything else is a network failure; odd values never throw', () => {
    for (const odd of [null, undefined, 0, 'boom', {}, { response: {} }, { response: { status: '503', headers: new Headers() } }, { response: { status: 503, headers: {} } }]) {
      expect(errorOutcome(odd)).toEqual({ type: 'network', error: odd });
      expect(responseOf(odd)).toBeUndefined();
    }
  });
});
