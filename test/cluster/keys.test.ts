import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cooldownKeys, jobKeys, randomId } from '../../src/cluster/keys.js';
import { sha256Hex, shareKey } from '../../src/kit/index.js';
import { requestFactory } from '../../src/http/request.js';

// The names pollite gives things in Redis: they must be the same in every
// process and runtime, so each is checked exactly (the hashes against
// node:crypto's).

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('sha256Hex() and cooldownKeys()', () => {
  it("is the SHA-256 in lower-case hex, two digits a byte (this path's has bytes under 16)", async () => {
    expect(hex('/v1/jobs')).toBe('bca1e36d88dbc646e72faac7fc24afd3996a73709d684e50c11e13d874bf0611');
    expect(await sha256Hex('/v1/jobs')).toBe(hex('/v1/jobs'));
    expect(await sha256Hex('')).toBe(hex(''));
  });

  it("keys a URL's cooldowns by its origin (503) and its path hashed (429), in the origin's slot", async () => {
    expect(await cooldownKeys('p:', new URL('https://api.example:8443/v1/jobs?page=2#top'))).toEqual([
      'p:cool:{https://api.example:8443}:503',
      `p:cool:{https://api.example:8443}:429:${hex('/v1/jobs')}`,
    ]);
  });
});

describe('jobKeys()', () => {
  it("names a job's lease, last body and next time, and its channel, all in one slot", () => {
    expect(jobKeys('p:', 'abc')).toEqual({ lease: 'p:job:{abc}:lease', last: 'p:job:{abc}:last', next: 'p:job:{abc}:next', channel: 'p:job:{abc}' });
  });
});

describe("shareKey(), the material of cluster.share()'s job names", () => {
  it('is the method, URL, headers (sorted by name) and body; a body that cannot be read without consuming it makes none', () => {
    expect(shareKey(requestFactory('https://api.example/jobs/42', {}))).toBe('GET https://api.example/jobs/42\n\n');
    // A Request's headers and init's: names lower-cased, sorted across both.
    const request = new Request('https://api.example/jobs/42', { headers: { 'X-Zone': 'eu', Accept: 'text/plain' } });
    expect(shareKey(requestFactory(request, { headers: { authorization: 'Bearer t' } }))).toBe(
      'GET https://api.example/jobs/42\naccept: text/plain\nauthorization: Bearer t\nx-zone: eu\n\n',
    );
    expect(shareKey(requestFactory('https://api.example/jobs', { method: 'post', body: '{"a":1}' }))).toBe('POST https://api.example/jobs\n\ns{"a":1}');
    expect(shareKey(requestFactory('https://api.example/jobs', { method: 'POST', body: new URLSearchParams({ a: '1', b: '2' }) }))).toBe(
      'POST https://api.example/jobs\n\nua=1&b=2',
    );
    expect(shareKey(requestFactory('https://api.example/jobs', { method: 'POST', body: new Blob(['x']) }))).toBeUndefined();
    // The body's kind: fetch sends '' with Content-Type text/plain;charset=UTF-8 and no body with none,
    // and a string and URLSearchParams of the same text with different types: four different jobs.
    const kinds = [undefined, '', 'a=1', new URLSearchParams('a=1')].map((body) => shareKey(requestFactory('https://api.example/jobs', { method: 'POST', body })));
    expect(kinds).toEqual(['POST https://api.example/jobs\n\n', 'POST https://api.example/jobs\n\ns', 'POST https://api.example/jobs\n\nsa=1', 'POST https://api.example/jobs\n\nua=1']);
  });
});

describe('randomId()', () => {
  it("is crypto.randomUUID()'s where there is one", () => {
    const ids = [randomId(), randomId()];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('is the time and a random number, in base 36, where there is none', () => {
    vi.stubGlobal('crypto', { subtle: globalThis.crypto.subtle });
    vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    expect(randomId()).toBe('loyw3v28-9');
  });
});
