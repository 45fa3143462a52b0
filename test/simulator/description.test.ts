import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator/index.js';

// The description is what the table prints under its title: it must say what
// the server did, not what the named scenario would have done.
describe('simulate: the description follows the server settings', () => {
  it("is the scenario's own text when the server is the scenario's", async () => {
    const result = await simulate({ clients: 10, duration: 10_000, strategies: ['naive'] });
    expect(result.description).toBe('503 without Retry-After from 2 s to 4 s; then 8 req/s capacity');
  });

  it('describes the overridden outages, not the scenario ones', async () => {
    const result = await simulate({
      clients: 10,
      duration: 10_000,
      strategies: ['naive'],
      server: { outages: [{ start: 1000, end: 7500, retryAfter: 30 }] },
    });
    expect(result.description).toBe('customised server: 503 with Retry-After: 30 from 1 s to 7.5 s; 8 req/s capacity');
  });

  it('names every setting that differs from the defaults', async () => {
    const result = await simulate({
      clients: 10,
      duration: 10_000,
      scenario: 'job',
      strategies: ['naive'],
      server: { jobDoneAt: 2500, responseTime: 0, capacity: Infinity, bodyBytes: 100, rateLimit: { rps: 3 }, overloadRetryAfter: 5 },
    });
    expect(result.description).toBe(
      'customised server: rate limit of 3 req/s: 429 with Retry-After: 1; a job that finishes at 2.5 s; 0 ms per request; 100-byte bodies',
    );
  });

  it('says so when the server does nothing in the way', async () => {
    const result = await simulate({ clients: 2, duration: 5000, strategies: ['naive'], server: { outages: [] } });
    expect(result.description).toBe('customised server: 2 req/s capacity');
    const open = await simulate({ clients: 2, duration: 5000, strategies: ['naive'], server: { outages: [], capacity: Infinity } });
    expect(open.description).toBe('customised server: no outage, no limit');
  });
});
