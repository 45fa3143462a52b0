import { afterEach, describe, expect, it } from 'vitest';
import { poll, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// Issue 36: every pacing signal a server sends is a floor of poll's next
// wait, spread like Retry-After (random 0.5: +10 %), capped by
// maxRetryAfter, and named in the event (`source`). Each against a real
// loopback server that sends it; the waits are the exact ones chosen.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';
const pending = { status: 'pending' };
const done = { status: 'done' };

/** Polls `server` to done at `interval`, with random 0.5: the waits chosen and the events. */
async function run(interval = 100, maxRetryAfter?: number): Promise<{ delays: readonly number[]; events: PollEvent[] }> {
  const { env, delays } = recordingEnv({ random: 0.5 });
  const events: PollEvent[] = [];
  await poll<Job>(server!.url, { isDone, interval, env, onEvent: (e) => events.push(e), ...(maxRetryAfter === undefined ? {} : { maxRetryAfter }) });
  return { delays, events };
}
const waits = (events: PollEvent[]) => events.filter((e) => e.type === 'wait').map((e) => ({ delay: e.delay, source: e.source }));
const retries = (events: PollEvent[]) =>
  events.filter((e) => e.type === 'retry').map((e) => ({ status: e.status, delay: e.delay, retryAfter: e.retryAfter, source: e.source, paced: e.paced }));

describe('X-Poll-Interval (GitHub): the poll interval floor on a 200 or 304', () => {
  it('X-Poll-Interval: 60 on a 200 holds the next poll 60 s (66 s with the spread), not the 100 ms interval', async () => {
    server = await startServer(scripted([json(200, pending, { 'x-poll-interval': '60' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([66_000]);
    expect(waits(events)).toEqual([{ delay: 66_000, source: 'x-poll-interval' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('on a 304 too, whose body is the last one', async () => {
    server = await startServer(
      scripted([
        json(200, pending, { etag: '"v1"', 'x-poll-interval': '2' }),
        (res) => res.writeHead(304, { etag: '"v1"', 'x-poll-interval': '3' }).end(),
        json(200, done),
      ]),
    );
    const { delays, events } = await run();
    expect(delays).toEqual([2200, 3300]);
    expect(waits(events).map((w) => w.source)).toEqual(['x-poll-interval', 'x-poll-interval']);
    expect(server.requests[1]!.headers['if-none-match']).toBe('"v1"');
  });

  it('under the interval it changes nothing, and the wait names no source', async () => {
    server = await startServer(scripted([json(200, pending, { 'x-poll-interval': '1' }), json(200, done)]));
    const { delays, events } = await run(5000);
    expect(delays).toEqual([5000]);
    expect(waits(events)).toEqual([{ delay: 5000, source: undefined }]);
  });

  it('a hostile value is capped (1e308 seconds: maxRetryAfter, spread below it) or ignored (negative, NaN, 1e3)', async () => {
    server = await startServer(scripted([json(200, pending, { 'x-poll-interval': '9'.repeat(400) }), json(200, done)]));
    expect((await run(100, 10_000)).delays).toEqual([9167]);
    for (const bad of ['-60', 'NaN', '1e3', '0x10', 'sixty', '']) {
      await server.close();
      server = await startServer(scripted([json(200, pending, { 'x-poll-interval': bad }), json(200, done)]));
      expect((await run()).delays, bad).toEqual([100]);
    }
  });
});

describe('retry-after-ms and x-ms-retry-after-ms: Retry-After to the millisecond', () => {
  it('retry-after-ms: 1500 on a 429 (OpenAI): the retry after 1650 ms, not the 2 s of its Retry-After beside it', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after-ms': '1500', 'retry-after': '2' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([1650]);
    expect(retries(events)).toEqual([{ status: 429, delay: 1650, retryAfter: 1500, source: 'retry-after-ms', paced: true }]);
  });

  it('x-ms-retry-after-ms: 2500 on a 503 (Azure): 2750 ms', async () => {
    server = await startServer(scripted([json(503, {}, { 'x-ms-retry-after-ms': '2500' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([2750]);
    expect(retries(events)[0]).toMatchObject({ source: 'retry-after-ms', paced: true });
  });

  it('under a second (retry-after-ms: 20) it is a counted failure that still waits at least a second, not a hot loop', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after-ms': '20' }), json(200, done)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 100, backoff: () => 0, env, onEvent: (e) => events.push(e) });
    // 1000 ms × 1.1, over the 100 ms interval + a backoff of 0.
    expect(delays).toEqual([1100]);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ failures: 1, retryAfter: null, delay: 1100 });
  });

  it('a malformed one leaves Retry-After to speak', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after-ms': '-5', 'retry-after': '3' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([3300]);
    expect(retries(events)[0]).toMatchObject({ source: 'retry-after' });
  });
});

describe('X-RateLimit-Retry-After (Symfony): seconds to go, or an epoch time', () => {
  it('as seconds on a 429: 3 s, 3300 ms', async () => {
    server = await startServer(scripted([json(429, {}, { 'x-ratelimit-retry-after': '3' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([3300]);
    expect(retries(events)[0]).toMatchObject({ source: 'ratelimit', retryAfter: 3000 });
  });

  it('as an epoch time on a 429: until then', async () => {
    const { env, delays, clock } = recordingEnv({ random: 0.5 });
    const at = (clock.now() + 4000) / 1000;
    server = await startServer(scripted([json(429, {}, { 'x-ratelimit-retry-after': at.toFixed(3) }), json(200, done)]));
    await poll<Job>(server.url, { isDone, interval: 100, env });
    expect(delays).toEqual([4400]);
  });
});

describe('grpc-retry-pushback-ms (gRPC, Connect)', () => {
  it('1200 on a 503: 1320 ms', async () => {
    server = await startServer(scripted([json(503, {}, { 'grpc-retry-pushback-ms': '1200' }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([1320]);
    expect(retries(events)[0]).toMatchObject({ source: 'grpc-pushback', retryAfter: 1200 });
  });

  it('a negative pushback asks not to retry: poll gives up at once, one request sent', async () => {
    server = await startServer(scripted([json(503, {}, { 'grpc-retry-pushback-ms': '-1', 'retry-after': '1' }), json(200, done)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const events: PollEvent[] = [];
    const error = await poll<Job>(server.url, { isDone, interval: 100, env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollGaveUpError);
    expect(events.at(-1)).toEqual({ type: 'give-up', attempt: 1, reason: 'not-retryable', status: 503 });
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the hint in a JSON error body of a 429 or 503', () => {
  const retryInfo = { error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] } };

  it('google.rpc.RetryInfo retryDelay: "3s" (Google APIs): 3300 ms', async () => {
    server = await startServer(scripted([json(429, retryInfo), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([3300]);
    expect(retries(events)).toEqual([{ status: 429, delay: 3300, retryAfter: 3000, source: 'body', paced: true }]);
  });

  it('error.retry_after and a top-level retry_after, in seconds', async () => {
    server = await startServer(scripted([json(503, { error: { message: 'busy', retry_after: 2 } }), json(429, { message: 'slow down', retry_after: 1.5 }), json(200, done)]));
    const { delays, events } = await run();
    expect(delays).toEqual([2200, 1650]);
    expect(retries(events).map((r) => r.source)).toEqual(['body', 'body']);
  });

  it('a header that asks longer wins; the body is a floor beside it', async () => {
    server = await startServer(scripted([json(429, retryInfo, { 'retry-after': '5' }), json(429, retryInfo, { 'retry-after': '1' }), json(200, done)]));
    const { events } = await run();
    expect(retries(events).map((r) => [r.retryAfter, r.source])).toEqual([[5000, 'retry-after'], [3000, 'body']]);
  });

  it('not read from a body that is not JSON, nor over 64 KiB, nor of another status: the backoff decides', async () => {
    const big = { retry_after: 9, pad: 'x'.repeat(70 * 1024) };
    server = await startServer(
      scripted([
        (res) => res.writeHead(429, { 'content-type': 'text/plain' }).end('{"retry_after": 9}'),
        (res) => sendJson(res, 429, big),
        (res) => sendJson(res, 500, { retry_after: 9 }),
        json(200, done),
      ]),
    );
    const { events } = await run();
    expect(retries(events).map((r) => r.source)).toEqual([undefined, undefined, undefined]);
    expect(retries(events).every((r) => r.delay < 9000)).toBe(true);
  });
});

describe('caps', () => {
  it('each signal is capped by maxRetryAfter, spread below the cap', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after-ms': '9'.repeat(400) }), json(200, pending, { 'x-poll-interval': '86400' }), json(200, done)]));
    const { delays } = await run(100, 6000);
    // Above the cap: over [cap / 1.2, cap], at the middle with random 0.5.
    expect(delays).toEqual([5500, 5500]);
  });
});
