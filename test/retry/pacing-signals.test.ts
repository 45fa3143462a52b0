import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, HttpError, retry, type GiveUpInfo, type RetryInfo } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// Issue 36: fetchWithRetry and retry obey the same signals as poll (one
// decision, serverSays), with random 0.5 injected: +10 % spread.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const retryInfo = (delay: string) => ({ error: { code: 429, details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }] } });

describe('fetchWithRetry obeys every signal', () => {
  it.each([
    ['retry-after-ms (OpenAI)', 429, { 'retry-after-ms': '1500', 'retry-after': '2' }, 1650],
    ['x-ms-retry-after-ms (Azure)', 503, { 'x-ms-retry-after-ms': '2500' }, 2750],
    ['X-RateLimit-Retry-After as seconds', 429, { 'x-ratelimit-retry-after': '3' }, 3300],
    ['grpc-retry-pushback-ms (Connect)', 503, { 'grpc-retry-pushback-ms': '1200' }, 1320],
    ['a RateLimit list on a 429: the quota that binds', 429, { ratelimit: '"burst";r=4;t=1, "day";r=0;t=2' }, 2200],
  ] as const)('%s', async (_name, status, headers, wait) => {
    server = await startServer(scripted([json(status, {}, headers), json(200, { ok: true })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(server.url, { retry: { env } });
    expect(response.status).toBe(200);
    expect(delays).toEqual([wait]);
    expect(server.requests).toHaveLength(2);
  });

  it('a RetryInfo in the body of a 429: 3300 ms; the final response\'s body is whole for the caller', async () => {
    server = await startServer(scripted([json(429, retryInfo('3s'))]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const seen: RetryInfo[] = [];
    const response = await fetchWithRetry(server.url, { retry: { env, retries: 1, onRetry: (info) => void seen.push(info) } });
    expect(delays).toEqual([3300]);
    expect(seen.map(({ delay, paced, source }) => ({ delay, paced, source }))).toEqual([{ delay: 3300, paced: true, source: 'body' }]);
    expect(response.status).toBe(429);
    // Read from a clone: the caller still gets all of it.
    expect(await response.json()).toEqual(retryInfo('3s'));
  });

  it('a body over 64 KiB is not read for a hint, and reaches the caller whole', async () => {
    const big = { retry_after: 9, pad: 'x'.repeat(70 * 1024) };
    server = await startServer(scripted([(res) => sendJson(res, 503, big)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(server.url, { retry: { env, retries: 1 } });
    expect(delays[0]).toBeLessThan(9000);
    expect(((await response.json()) as typeof big).pad).toHaveLength(70 * 1024);
  });

  it('a negative grpc-retry-pushback-ms: the answer at once, not retried (onGiveUp: not-retryable)', async () => {
    server = await startServer(scripted([json(503, {}, { 'grpc-retry-pushback-ms': '-1' }), json(200, { ok: true })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const gaveUp: GiveUpInfo[] = [];
    const response = await fetchWithRetry(server.url, { retry: { env, onGiveUp: (info) => void gaveUp.push(info) } });
    expect(response.status).toBe(503);
    expect(gaveUp.map((g) => g.reason)).toEqual(['not-retryable']);
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a 2xx\'s signals are no business of fetchWithRetry: it resolves at once', async () => {
    server = await startServer(scripted([json(200, { ok: true }, { 'x-poll-interval': '60', ratelimit: 'limit=10, remaining=0, reset=5' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    expect((await fetchWithRetry(server.url, { retry: { env } })).status).toBe(200);
    expect(delays).toEqual([]);
  });
});

describe('retry reads the signals of an HttpError\'s response headers', () => {
  it.each([
    ['retry-after-ms', { 'retry-after-ms': '1500' }, 1650],
    ['x-ms-retry-after-ms', { 'x-ms-retry-after-ms': '2500' }, 2750],
    ['grpc-retry-pushback-ms', { 'grpc-retry-pushback-ms': '1200' }, 1320],
  ] as const)('%s', async (_name, headers, wait) => {
    server = await startServer(scripted([json(503, {}, headers), json(200, { ok: true })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const url = server.url;
    const seen: RetryInfo[] = [];
    const value = await retry(
      async ({ signal }) => {
        const response = await fetch(url, { signal });
        if (!response.ok) throw new HttpError(response);
        return response.json();
      },
      { env, onRetry: (info) => void seen.push(info) },
    );
    expect(value).toEqual({ ok: true });
    expect(delays).toEqual([wait]);
    expect(seen[0]).toMatchObject({ delay: wait, paced: true, source: _name === 'grpc-retry-pushback-ms' ? 'grpc-pushback' : 'retry-after-ms' });
  });

  it('a negative pushback ends the call with the HttpError', async () => {
    server = await startServer(scripted([json(503, {}, { 'grpc-retry-pushback-ms': '-5' }), json(200, { ok: true })]));
    const { env } = recordingEnv({ random: 0.5 });
    const url = server.url;
    const error = await retry(
      async () => {
        const response = await fetch(url);
        if (!response.ok) throw new HttpError(response);
        return response.json();
      },
      { env },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
  });
});
