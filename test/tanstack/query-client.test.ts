import { environmentManager, QueryClient, QueryObserver, timeoutManager } from '@tanstack/query-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDemoServer, type DemoServer } from '../../src/demo/node-server.js';
import { HttpError } from '../../src/index.js';
import { conditionalQueryFn, refetchUntil, retryPolicy, type TanStackRetry } from '../../src/tanstack/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// A client, not a server: TanStack disables refetchInterval where it thinks it runs on a server.
environmentManager.setIsServer(() => false);

// Every sleep TanStack takes goes through its timeoutManager. The ones our
// retryDelay chose are recorded and run at once, so tests assert the exact
// delay TanStack waited without waiting it; every other timer runs as usual.
const chosen = new Set<number>();
const sleeps: number[] = [];
timeoutManager.setTimeoutProvider({
  setTimeout: (callback: () => void, ms: number) => {
    if (!chosen.has(ms)) return setTimeout(callback, ms);
    sleeps.push(ms);
    return setTimeout(callback, 0);
  },
  clearTimeout: (id: ReturnType<typeof setTimeout> | undefined) => clearTimeout(id),
  setInterval: (callback: () => void, ms: number) => setInterval(callback, ms),
  clearInterval: (id: ReturnType<typeof setInterval> | undefined) => clearInterval(id),
});

/** retryPolicy with an injected random, whose every chosen delay is fast-forwarded and recorded. */
const recorded = (options: Parameters<typeof retryPolicy>[0] = {}): TanStackRetry => {
  const policy = retryPolicy({ random: () => 0.5, ...options });
  return {
    retry: policy.retry,
    retryDelay: (failureCount, error) => {
      const delay = policy.retryDelay(failureCount, error);
      chosen.add(delay);
      return delay;
    },
  };
};

let server: TestServer | undefined;
let client: QueryClient;
beforeEach(() => {
  client = new QueryClient();
  sleeps.length = 0;
  chosen.clear();
});
afterEach(async () => {
  client.clear();
  await server?.close();
  server = undefined;
});

describe('retry and retryDelay in a real QueryClient', () => {
  it('honours 503 + Retry-After: TanStack sleeps exactly the chosen 2200 ms, then succeeds', async () => {
    server = await startServer(
      scripted([
        (res) => sendJson(res, 503, { error: 'busy' }, { 'retry-after': '2' }),
        (res) => sendJson(res, 200, { status: 'running' }),
      ]),
    );
    const data = await client.fetchQuery({
      queryKey: ['job', 1],
      queryFn: conditionalQueryFn(`${server.url}/jobs/1`),
      ...recorded(),
    });
    expect(data).toEqual({ status: 'running' });
    expect(sleeps).toEqual([2200]);
    expect(server.requests.map((r) => r.path)).toEqual(['/jobs/1', '/jobs/1']);
  });

  it('backs off with full jitter when there is no Retry-After, and gives up after maxRetries', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 500, { error: 'broken' })]));
    const error = await client
      .fetchQuery({ queryKey: ['job', 2], queryFn: conditionalQueryFn(`${server.url}/jobs/2`), ...recorded({ maxRetries: 2 }) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(500);
    expect(sleeps).toEqual([500, 1000]);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 404: one request, HttpError, no sleep', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 404, { error: 'no such job' })]));
    const error = await client
      .fetchQuery({ queryKey: ['job', 3], queryFn: conditionalQueryFn(`${server.url}/jobs/3`), ...recorded() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('conditionalQueryFn in a real QueryClient', () => {
  it('sends the last ETag and returns the previous data on 304; a new ETag replaces it', async () => {
    let version = 1;
    server = await startServer((req, res) => {
      const etag = `"v${version}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      sendJson(res, 200, { progress: version * 10 }, { etag });
    });
    const fetchJob = () =>
      client.fetchQuery({ queryKey: ['job', 4], queryFn: conditionalQueryFn(`${server!.url}/jobs/4`), staleTime: 0 });
    const first = await fetchJob();
    const second = await fetchJob();
    version = 2;
    const third = await fetchJob();
    const fourth = await fetchJob();
    expect([first, second, third, fourth]).toEqual([{ progress: 10 }, { progress: 10 }, { progress: 20 }, { progress: 20 }]);
    expect(second).toBe(first);
    expect(server.requests.map((r) => r.headers['if-none-match'] ?? null)).toEqual([null, '"v1"', '"v1"', '"v2"']);
  });

  it('a 204 (no content) is data null, which TanStack accepts, not undefined, which it refuses', async () => {
    server = await startServer(scripted([(res) => res.writeHead(204).end()]));
    const data = await client.fetchQuery({ queryKey: ['empty'], queryFn: conditionalQueryFn(`${server.url}/empty`) });
    expect(data).toBeNull();
  });

  it('keeps ETags per query: another query of the same URL starts unconditional', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { ok: true }, { etag: '"same"' }));
    const queryFn = conditionalQueryFn(`${server.url}/jobs/5`);
    await client.fetchQuery({ queryKey: ['a'], queryFn });
    await client.fetchQuery({ queryKey: ['b'], queryFn });
    await client.fetchQuery({ queryKey: ['a'], queryFn, staleTime: 0 });
    expect(server.requests.map((r) => r.headers['if-none-match'] ?? null)).toEqual([null, null, '"same"']);
  });

  it('refuses a bad url or options with a TypeError naming it', () => {
    expect(() => conditionalQueryFn('http://[bad')).toThrow(new TypeError('Expected `url` to be a valid URL string or URL, got http://[bad'));
    expect(() => conditionalQueryFn(42 as never)).toThrow('Expected `url` to be a valid URL string or URL, got 42');
    expect(() => conditionalQueryFn('http://a.test', { parse: 1 as never })).toThrow(TypeError);
    expect(() => conditionalQueryFn('http://a.test', { parse: 1 as never })).toThrow('Expected `parse` to be a function');
  });
});

describe('refetchUntil in a real QueryObserver, against the demo API', () => {
  let demo: DemoServer | undefined;
  afterEach(() => demo?.close());

  it('polls conditionally (304s while unchanged) and stops at done', async () => {
    demo = await startDemoServer();
    const job = demo.api.createJob({ duration: 600, step: 50 });
    type Job = { status: string; progress: number };
    const observer = new QueryObserver(client, {
      queryKey: ['job', job.id],
      queryFn: conditionalQueryFn<Job>(`${demo.url}/jobs/${job.id}`),
      refetchInterval: refetchUntil((j: Job) => j.status === 'done' || j.status === 'failed', 40),
    });
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      observer.subscribe((result) => {
        if (result.data && seen.at(-1) !== `${result.data.status} ${result.data.progress}`) {
          seen.push(`${result.data.status} ${result.data.progress}`);
        }
        if (result.data?.status === 'done') resolve();
      });
    });
    await done;
    const stats = { ...demo.api.stats(job.id)! };
    await new Promise((resolve) => setTimeout(resolve, 200));
    observer.destroy();
    expect(seen.at(-1)).toBe('done 100');
    expect(stats.notModified).toBeGreaterThan(0);
    // Five intervals after done, not one more request.
    expect(demo.api.stats(job.id)!.requests).toBe(stats.requests);
  });

  it('returns the interval until done, and false once done or after an error not worth retrying', () => {
    const interval = refetchUntil((job: { status: string }) => job.status === 'done', 1500);
    const state = (data: { status: string } | undefined, status: 'pending' | 'error' | 'success' = 'success', error: unknown = null) => ({
      state: { data, status, error },
    });
    expect(interval(state(undefined, 'pending'))).toBe(1500);
    expect(interval(state({ status: 'running' }))).toBe(1500);
    expect(interval(state({ status: 'done' }))).toBe(false);
    expect(interval(state({ status: 'running' }, 'error', new HttpError(new Response(null, { status: 503 }), 'u')))).toBe(1500);
    expect(interval(state({ status: 'running' }, 'error', new HttpError(new Response(null, { status: 404 }), 'u')))).toBe(false);
    expect(() => refetchUntil('done' as never, 1000)).toThrow('Expected `isDone` to be a function');
    expect(() => refetchUntil(() => true, 0)).toThrow('Expected `interval` to be a number of ms > 0 and <= 2147483647, got 0');
  });
});
