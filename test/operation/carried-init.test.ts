import { describe, expect, it } from 'vitest';
import { carriedFrom, initFor, isOrigin, SAFE_HEADERS, type StartParts } from '../../src/operation/carried-init.js';

const START = 'https://api.example/v1/jobs?key=1';

/** The start's parts; a string input read as a Request has none of its fields. */
const start = (headers: Record<string, string>, init: RequestInit = {}, request: Partial<Request> = START as Partial<Request>): StartParts => ({ url: START, headers, init, request });

/** Every header a caller may have put on the start: credentials (standard and custom), body headers, harmless ones. */
const HEADERS = {
  authorization: 'Bearer t',
  cookie: 'sid=1',
  'proxy-authorization': 'Basic cA==',
  'api-key': 'k',
  'ocp-apim-subscription-key': 's',
  'x-api-key': 'x',
  accept: 'application/json',
  'accept-language': 'fr',
  'content-language': 'fr',
  'user-agent': 'pollite-test',
  'content-type': 'application/json',
  'content-length': '2',
  'content-encoding': 'gzip',
  'idempotency-key': 'i-1',
};

/** The fields of an init that are not about its body, all set. */
const dispatcher = { dispatch: () => true };
const FIELDS = {
  credentials: 'include',
  mode: 'cors',
  cache: 'no-store',
  redirect: 'manual',
  keepalive: true,
  priority: 'high',
  referrer: 'about:client',
  referrerPolicy: 'no-referrer',
  dispatcher,
} as RequestInit;

describe('carriedFrom: what the start hands on', () => {
  it("its headers less its body's and its write's; every init field but method, body, headers, signal, integrity, duplex and window", () => {
    const init = { ...FIELDS, method: 'POST', body: '{}', headers: { a: '1' }, signal: AbortSignal.abort(), integrity: 'sha256-x', duplex: 'half', window: null, extra: undefined } as RequestInit;
    const carried = carriedFrom(start(HEADERS, init), undefined);
    const { 'content-type': _t, 'content-length': _l, 'content-encoding': _e, 'idempotency-key': _k, ...kept } = HEADERS;
    expect(carried.headers).toEqual(kept);
    expect(carried.fields).toEqual(FIELDS);
    expect(carried.fields).not.toHaveProperty('extra');
    expect([...carried.trusted]).toEqual(['https://api.example']);
  });

  it('operation.headers replace the start\'s, whatever they hold', () => {
    const carried = carriedFrom(start(HEADERS), new Headers({ 'X-Poll': 'yes', 'Content-Type': 'text/plain' }));
    expect(carried.headers).toEqual({ 'x-poll': 'yes', 'content-type': 'text/plain' });
    expect(carriedFrom(start(HEADERS), [['Api-Key', 'k2']]).headers).toEqual({ 'api-key': 'k2' });
  });

  it("a Request input's own fields, under init's; never its method, body, integrity, nor a navigation's mode", () => {
    const request = new Request(START, { method: 'POST', body: '{}', credentials: 'include', cache: 'no-cache', redirect: 'error', referrerPolicy: 'origin', keepalive: true, integrity: 'sha256-x' });
    expect(carriedFrom(start({}, {}, request), undefined).fields).toEqual({
      cache: 'no-cache',
      credentials: 'include',
      keepalive: true,
      mode: request.mode,
      redirect: 'error',
      referrer: request.referrer,
      referrerPolicy: 'origin',
    });
    expect(carriedFrom(start({}, { credentials: 'omit', redirect: 'follow' }, request), undefined).fields).toMatchObject({ credentials: 'omit', redirect: 'follow', cache: 'no-cache' });
    const navigation = { cache: 'default', mode: 'navigate' } as unknown as Request;
    expect(carriedFrom(start({}, {}, navigation), undefined).fields).toStrictEqual({ cache: 'default' });
  });

  it('trusts the start URL\'s origin and trustedOrigins', () => {
    expect([...carriedFrom(start({}), undefined, ['https://ops.example', 'http://127.0.0.1:8080']).trusted]).toEqual(['https://api.example', 'https://ops.example', 'http://127.0.0.1:8080']);
  });
});

describe('initFor: credentials never go to an origin the caller did not name', () => {
  const carried = carriedFrom(start(HEADERS, FIELDS), undefined, ['https://ops.example']);

  it('the start URL\'s origin (any path, query or fragment) and a trusted origin get everything, credentials: include too', () => {
    for (const url of ['https://api.example/ops/1?x=1', 'https://api.example', 'https://ops.example/status#a']) {
      const init = initFor(url, carried);
      expect(init).toEqual({ ...FIELDS, headers: carried.headers });
      // A copy: a request that adds a header (If-None-Match) does not add it to the next.
      expect(init.headers).not.toBe(carried.headers);
    }
  });

  it('any other origin (another scheme, host or port) gets the safe headers only, and same-origin credentials; every other field as carried', () => {
    for (const url of ['http://api.example/ops/1', 'https://api.example:8443/ops/1', 'https://evil.example/ops/1', 'https://ops.example.evil/x', 'https://sub.api.example/x']) {
      expect(initFor(url, carried)).toEqual({
        ...FIELDS,
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'accept-language': 'fr', 'content-language': 'fr', 'user-agent': 'pollite-test' },
      });
    }
    expect([...SAFE_HEADERS]).toEqual(['accept', 'accept-language', 'content-language', 'user-agent']);
  });

  it("credentials other than 'include' stay as they are, and none stays none", () => {
    const other = 'https://evil.example/x';
    expect(initFor(other, carriedFrom(start({}, { credentials: 'omit' }), undefined)).credentials).toBe('omit');
    expect(initFor(other, carriedFrom(start({}, { credentials: 'same-origin' }), undefined)).credentials).toBe('same-origin');
    expect(initFor(other, carriedFrom(start({}, { mode: 'cors' }), undefined))).toStrictEqual({ mode: 'cors', headers: {} });
  });

  it('operation.headers follow the same rule', () => {
    const given = carriedFrom(start(HEADERS), { 'api-key': 'poll-key', accept: 'text/plain' });
    expect(initFor('https://evil.example/x', given).headers).toEqual({ accept: 'text/plain' });
    expect(initFor('https://api.example/x', given).headers).toEqual({ 'api-key': 'poll-key', accept: 'text/plain' });
  });
});

describe('isOrigin: what trustedOrigins accepts', () => {
  it.each(['https://ops.example.com', 'http://127.0.0.1:8080', 'https://[::1]:8443', 'http://localhost'])('%s is an origin', (value) => {
    expect(isOrigin(value)).toBe(true);
  });

  it.each([
    'https://ops.example.com/',
    'https://ops.example.com/path',
    'https://ops.example.com?q',
    'https://OPS.example.com',
    'https://ops.example.com:443',
    'https://u:p@ops.example.com',
    'ops.example.com',
    'ftp://ops.example.com',
    'file:///etc',
    'null',
    '',
    'https://',
    42,
    undefined,
  ])('%s is not', (value) => {
    expect(isOrigin(value)).toBe(false);
  });
});
