import { describe, expect, it } from 'vitest';
import { bodyWait, freshFor, parseGrpcPushback, parsePollInterval, parseRetryAfterMs, serverSays } from '../../src/kit/index.js';

// The parsers of issue 36, one per dialect family, and the one decision
// (serverSays) that turns them into a server's wait with its source.

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const h = (fields: Record<string, string>): Headers => new Headers(fields);

describe('the parsers', () => {
  it('parsePollInterval: seconds as ms; anything but a non-negative decimal is null', () => {
    expect(parsePollInterval('60')).toBe(60_000);
    expect(parsePollInterval(' 1.5 ')).toBe(1500);
    expect(parsePollInterval('0')).toBe(0);
    for (const bad of [null, undefined, '', '-1', '1e3', '0x10', 'NaN', 'Infinity', '60s', '.5']) expect(parsePollInterval(bad), String(bad)).toBeNull();
    expect(parsePollInterval('9'.repeat(400))).toBe(Infinity);
  });

  it('parseRetryAfterMs: ms, decimals allowed', () => {
    expect(parseRetryAfterMs('1500')).toBe(1500);
    expect(parseRetryAfterMs('20.5')).toBe(20.5);
    for (const bad of [null, '', '-1', '1e3', 'soon', '+5']) expect(parseRetryAfterMs(bad), String(bad)).toBeNull();
  });

  it('parseGrpcPushback: ms, -1 for any negative (do not retry), null for garbage', () => {
    expect(parseGrpcPushback('250')).toBe(250);
    expect(parseGrpcPushback('-1')).toBe(-1);
    expect(parseGrpcPushback('-99999')).toBe(-1);
    expect(parseGrpcPushback('-0')).toBe(0);
    for (const bad of [null, '', '1.5', '1e3', '--1', 'abc', '- 1']) expect(parseGrpcPushback(bad), String(bad)).toBeNull();
  });

  it('bodyWait: RetryInfo\'s retryDelay (Google, Connect) or a retry_after in seconds, wherever it stands in the text', () => {
    const info = (retryDelay: unknown) => ({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay });
    const text = (body: unknown): string => JSON.stringify(body);
    expect(bodyWait(text({ error: { details: [{ '@type': 'x' }, info('30s')] } }))).toBe(30_000);
    expect(bodyWait(text({ error: { details: [info('1.5s')] } }))).toBe(1500);
    expect(bodyWait(text({ details: [{ type: 'google.rpc.RetryInfo', debug: { retryDelay: '2s' } }] }))).toBe(2000);
    expect(bodyWait(text({ error: { retry_after: 7 } }))).toBe(7000);
    expect(bodyWait(text({ retry_after: 64.5 }))).toBe(64_500);
    expect(bodyWait(text({ retry_after: '3' }))).toBe(3000);
    expect(bodyWait('{ "retry_after" : 2 }')).toBe(2000);
    // RetryInfo first, then retry_after.
    expect(bodyWait(text({ retry_after: 9, error: { details: [info('4s')] } }))).toBe(4000);
    for (const bad of [null, 5, 'x', [], {}, { retry_after: -1 }, { retry_after: 'soon' }, { retry_after: '1e3' }, { error: null }, { error: { details: [info('30')] } }, { error: { details: [info(30)] } }, { retry_after_ms: 5 }, { my_retry_after: 'x' }]) {
      expect(bodyWait(text(bad)), JSON.stringify(bad)).toBeNull();
    }
    expect(bodyWait('not json at all')).toBeNull();
  });

  it('freshFor: max-age minus Age; no-cache or no-store beside it say nothing', () => {
    expect(freshFor(h({ 'cache-control': 'public, max-age=60', age: '15' }))).toBe(45_000);
    expect(freshFor(h({ 'cache-control': 'max-age=60', age: '90' }))).toBe(0);
    expect(freshFor(h({ 'cache-control': 'Max-Age="30"' }))).toBe(30_000);
    expect(freshFor(h({ 'cache-control': 's-maxage=60' }))).toBeNull();
    expect(freshFor(h({ 'cache-control': 'max-age=60, no-cache' }))).toBeNull();
    expect(freshFor(h({ 'cache-control': 'no-store, max-age=60' }))).toBeNull();
    expect(freshFor(h({ 'cache-control': 'max-age=-1' }))).toBeNull();
    expect(freshFor(h({ 'cache-control': `max-age=${'9'.repeat(400)}`, age: '9'.repeat(400) }))).toBe(0);
    expect(freshFor(h({}))).toBeNull();
  });
});

describe('serverSays: the longest signal, and which one it was', () => {
  it('names the source of each', () => {
    expect(serverSays(200, h({ 'x-poll-interval': '60' }), NOW)).toEqual({ ms: 60_000, source: 'x-poll-interval' });
    expect(serverSays(429, h({ 'retry-after': '2' }), NOW)).toEqual({ ms: 2000, source: 'retry-after' });
    expect(serverSays(429, h({ 'retry-after-ms': '1500', 'retry-after': '2' }), NOW)).toEqual({ ms: 1500, source: 'retry-after-ms' });
    expect(serverSays(503, h({ 'x-ms-retry-after-ms': '800' }), NOW)).toEqual({ ms: 800, source: 'retry-after-ms' });
    expect(serverSays(503, h({ 'grpc-retry-pushback-ms': '900' }), NOW)).toEqual({ ms: 900, source: 'grpc-pushback' });
    expect(serverSays(503, h({ 'grpc-retry-pushback-ms': '-1', 'retry-after': '5' }), NOW)).toEqual({ ms: 0, source: 'grpc-pushback', stop: true });
    expect(serverSays(429, h({ 'x-ratelimit-retry-after': '4' }), NOW)).toEqual({ ms: 4000, source: 'ratelimit' });
    expect(serverSays(429, h({}), NOW, 3000)).toEqual({ ms: 3000, source: 'body' });
    expect(serverSays(200, h({ etag: '"a"' }), NOW)).toBeNull();
  });

  it('each a floor: the longest speaks, a Retry-After is never undercut', () => {
    expect(serverSays(200, h({ 'retry-after': '5', 'x-poll-interval': '60' }), NOW)).toEqual({ ms: 60_000, source: 'x-poll-interval' });
    expect(serverSays(200, h({ 'retry-after': '90', 'x-poll-interval': '60' }), NOW)).toEqual({ ms: 90_000, source: 'retry-after' });
    expect(serverSays(429, h({ 'retry-after': '1', 'grpc-retry-pushback-ms': '3000' }), NOW)).toEqual({ ms: 3000, source: 'grpc-pushback' });
    expect(serverSays(429, h({ 'retry-after': '9' }), NOW, 3000)).toEqual({ ms: 9000, source: 'retry-after' });
    expect(serverSays(200, h({ 'retry-after': '9', ratelimit: 'limit=10, remaining=3, reset=4' }), NOW)).toEqual({ ms: 9000, source: 'retry-after' });
  });

  it('reads X-Poll-Interval only on a 2xx or 304, the pushback only on a failure', () => {
    expect(serverSays(503, h({ 'x-poll-interval': '60' }), NOW)).toBeNull();
    expect(serverSays(200, h({ 'grpc-retry-pushback-ms': '-1' }), NOW)).toBeNull();
    expect(serverSays(304, h({ 'x-poll-interval': '2' }), NOW)).toEqual({ ms: 2000, source: 'x-poll-interval' });
  });
});
