import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { constant, createRetryBudget, fetchWithRetry, HttpError, type RetryInfo } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Res = Parameters<typeof sendJson>[0];
const status = (code: number, headers: Record<string, string> = {}) => (res: Res) => sendJson(res, code, { code }, headers);
const ok = status(200);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('fetchWithRetry against a real server', () => {
  it('retries a 503, then resolves with the 200', async () => {
    server = await startServer(scripted([status(503), ok]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const infos: RetryInfo[] = [];
    const response = await fetchWithRetry(`${server.url}/item`, { retry: { env, onRetry: (info) => infos.push(info) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ code: 200 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /item', 'GET /item']);
    expect(delays).toEqual([250]);
    expect(infos).toHaveLength(1);
    expect(infos[0]!.error).toBeInstanceOf(HttpError);
    expect((infos[0]!.error as HttpError).status).toBe(503);
  });

  it.each([400, 401, 403, 404, 409, 422])('resolves a %i at once, never retried', async (code) => {
    server = await startServer(scripted([status(code), ok]));
    const { env, delays } = recordingEnv();
    const response = await fetchWithRetry(server.url, { retry: { env } });
    expect(response.status).toBe(code);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('resolves with the last retryable response, body unread, when retries run out', async () => {
    server = await startServer(scripted([status(502), status(500), status(504)]));
    const response = await fetchWithRetry(server.url, { retry: { retries: 2, backoff: constant(5), env: recordingEnv().env } });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ code: 504 });
    expect(server.requests).toHaveLength(3);
  });

  it('retries exactly `statusCodes`', async () => {
    server = await startServer(scripted([status(409), status(503), ok]));
    const response = await fetchWithRetry(server.url, { retry: { statusCodes: [409], env: recordingEnv().env } });
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(2);
  });

  it('retries network failures (a socket the server destroys)', async () => {
    server = await startServer((req, res, _seen, index) => {
      if (index === 0) req.socket.destroy();
      else ok(res);
    });
    const infos: RetryInfo[] = [];
    const response = await fetchWithRetry(server.url, { retry: { env: recordingEnv().env, onRetry: (info) => infos.push(info) } });
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(2);
    expect((infos[0]!.error as Error).message).toBe('fetch failed');
  });

  it('retries an attempt that exceeds attemptTimeout', async () => {
    server = await startServer((_req, res, _seen, index) => {
      if (index > 0) ok(res); // the first request is never answered
    });
    // The first attempt's timer fires once the server holds that request; later ones never do.
    let attemptTimers = 0;
    const env = {
      ...recordingEnv().env,
      setTimeout: (callback: () => void, ms: number) => {
        if (ms !== 1000) return setTimeout(callback, 0);
        if (++attemptTimers > 1) return undefined;
        void vi.waitFor(() => expect(server!.requests).toHaveLength(1)).then(callback);
        return undefined;
      },
      clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    const response = await fetchWithRetry(server.url, { retry: { attemptTimeout: 1000, backoff: constant(0), env } });
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(2);
    await vi.waitFor(() => expect(server!.inFlight.now).toBe(0)); // the timed-out request was aborted, not left hanging
  });

  it('cancels the bodies of the responses it discards', async () => {
    let firstClosed = false;
    server = await startServer((_req, res, _seen, index) => {
      if (index > 0) return ok(res);
      res.on('close', () => (firstClosed = true));
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('a body that never ends...');
    });
    const response = await fetchWithRetry(server.url, { retry: { env: recordingEnv().env } });
    expect(response.status).toBe(200);
    await vi.waitFor(() => expect(firstClosed).toBe(true));
  });
});

describe('fetchWithRetry and Retry-After', () => {
  const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('waits out Retry-After in seconds, at most 20% above', async () => {
    server = await startServer(scripted([status(429, { 'retry-after': '3' }), status(503, { 'retry-after': '1' }), ok]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(server.url, { retry: { env } });
    expect(response.status).toBe(200);
    expect(delays).toEqual([3300, 1100]);
  });

  it('waits out Retry-After as an HTTP-date', async () => {
    const date = new Date(NOW + 5000).toUTCString();
    server = await startServer(scripted([status(503, { 'retry-after': date }), ok]));
    const { env, delays } = recordingEnv({ random: 0 });
    const response = await fetchWithRetry(server.url, { retry: { env: { ...env, now: () => NOW } } });
    expect(response.status).toBe(200);
    expect(delays).toEqual([5000]);
  });

  it('caps Retry-After at maxRetryAfter, a hard cap (spread below it), and falls back to backoff when it is malformed', async () => {
    server = await startServer(scripted([status(503, { 'retry-after': '3600' }), status(503, { 'retry-after': 'soon' }), ok]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await fetchWithRetry(server.url, { retry: { env, maxRetryAfter: 2000, backoff: (n) => n * 7 } });
    // 3600 s cut to the 2 s cap, spread over [2000 / 1.2, 2000]: never above the cap.
    expect(delays).toEqual([Math.ceil(2000 / 1.2 + (2000 - 2000 / 1.2) * 0.5), 14]);
  });
});

describe('fetchWithRetry and writes', () => {
  it('sends a POST once without an idempotency key, even when POST is listed', async () => {
    // Every answer a 503 that a GET would retry, but for a third request: a retried POST would get its 200.
    server = await startServer(scripted([status(503), status(503), ok]));
    for (const methods of [undefined, ['GET', 'POST']]) {
      const { env, delays } = recordingEnv();
      const response = await fetchWithRetry(server.url, { method: 'POST', body: '{}', retry: { methods, env } });
      expect(response.status, `methods: ${String(methods)}`).toBe(503);
      expect(delays, `methods: ${String(methods)}`).toEqual([]);
    }
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });

  it('sends a PATCH once without a key', async () => {
    server = await startServer(scripted([status(502), ok]));
    const response = await fetchWithRetry(server.url, { method: 'PATCH', body: 'x', retry: { env: recordingEnv().env } });
    expect(response.status).toBe(502);
    expect(server.requests).toHaveLength(1);
  });

  it('with idempotencyKey: true, every attempt carries the same new key and the server performs the write once', async () => {
    const performed = new Map<string, { id: number }>();
    let writes = 0;
    server = await startServer((req, res, seen) => {
      const key = String(seen.headers['idempotency-key']);
      let result = performed.get(key);
      if (!result) {
        writes += 1;
        result = { id: writes };
        performed.set(key, result);
        // The write happened, but the answer is lost on the way back.
        if (writes === 1) {
          req.socket.destroy();
          return;
        }
      }
      sendJson(res, 201, { ...result, body: seen.body });
    });
    const env = recordingEnv().env;
    const first = await fetchWithRetry(`${server.url}/orders`, { method: 'POST', body: '{"item":1}', retry: { idempotencyKey: true, env } });
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({ id: 1, body: '{"item":1}' });
    expect(writes).toBe(1);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);
    expect(server.requests.map((r) => r.body)).toEqual(['{"item":1}', '{"item":1}']);

    // A new call gets a new key.
    await fetchWithRetry(`${server.url}/orders`, { method: 'POST', body: '{"item":2}', retry: { idempotencyKey: true, env } });
    expect(server.requests[2]!.headers['idempotency-key']).toMatch(UUID);
    expect(server.requests[2]!.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('uses a given key string on every attempt, for a Request input too (its body given in init), and keeps the Request reusable', async () => {
    server = await startServer(scripted([status(503), status(201)]));
    const request = new Request(`${server.url}/pay`, { method: 'POST', headers: { 'x-trace': 't1' } });
    const response = await fetchWithRetry(request, { body: 'amount=5', retry: { idempotencyKey: 'pay-42', env: recordingEnv().env } });
    expect(response.status).toBe(201);
    expect(server.requests.map((r) => [r.method, r.headers['idempotency-key'], r.headers['x-trace'], r.body])).toEqual([
      ['POST', 'pay-42', 't1', 'amount=5'],
      ['POST', 'pay-42', 't1', 'amount=5'],
    ]);
    expect(request.bodyUsed).toBe(false);
  });

  it('with idempotencyKey: true keeps an Idempotency-Key header the caller set', async () => {
    server = await startServer(scripted([status(500), ok]));
    await fetchWithRetry(server.url, { method: 'PUT', headers: { 'Idempotency-Key': 'mine' }, retry: { idempotencyKey: true, env: recordingEnv().env } });
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine', 'mine']);
  });

  it('sends a stream body once and never retries it', async () => {
    server = await startServer(scripted([status(503), ok]));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'));
        controller.close();
      },
    });
    const init = { method: 'PUT', body, duplex: 'half', retry: { idempotencyKey: 'k', env: recordingEnv().env } } as RequestInit;
    const response = await fetchWithRetry(server.url, init);
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => r.body)).toEqual(['streamed']);
  });
});

describe('fetchWithRetry deadline and cancellation', () => {
  it('a Retry-After past the deadline is never undercut: nothing more is sent, TimeoutError at the deadline (not before), cause the HttpError', async () => {
    server = await startServer(scripted([status(503, { 'retry-after': '10' }), ok]));
    const { clock, env, delays, pending } = recordingEnv({ random: 0, auto: false });
    const started = clock.now();
    let settled = false;
    const call = fetchWithRetry(server.url, { retry: { timeout: 5000, env } }).catch((e: unknown) => e).finally(() => (settled = true));
    await vi.waitFor(() => expect(server!.requests).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the answer is handled
    await clock.advance(4999);
    expect(settled).toBe(false); // waiting for the deadline, sending nothing
    await clock.advance(1);
    const error = (await call) as DOMException;
    expect(error.name).toBe('TimeoutError');
    expect(error.cause).toBeInstanceOf(HttpError);
    expect((error.cause as HttpError).status).toBe(503);
    expect(clock.now() - started).toBe(5000);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([5000]); // the deadline timer only: the wait for it has no timer of its own
    expect(pending()).toBe(0);
  });

  it('rejects with the TimeoutError when the deadline passes during a request', async () => {
    server = await startServer(() => undefined); // never answers
    const error = (await fetchWithRetry(server.url, { retry: { timeout: 150 } }).catch((e: unknown) => e)) as DOMException;
    expect(error.name).toBe('TimeoutError');
    expect(server.requests).toHaveLength(1);
  });

  it('init.signal cancels a wait at once, leaving no timers or listeners', async () => {
    server = await startServer(scripted([status(503), ok]));
    const controller = new AbortController();
    const { env, pending } = recordingEnv({ auto: false });
    const result = fetchWithRetry(server.url, { signal: controller.signal, retry: { backoff: constant(60_000), env, onRetry: () => queueMicrotask(() => controller.abort()) } });
    await expect(result).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
    expect(pending()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('retry.signal cancels the request in flight', async () => {
    server = await startServer(() => undefined); // never answers
    const controller = new AbortController();
    const other = new AbortController();
    const reason = new Error('user left');
    const result = fetchWithRetry(server.url, { signal: other.signal, retry: { signal: controller.signal, env: recordingEnv().env } });
    await vi.waitFor(() => expect(server!.requests).toHaveLength(1));
    controller.abort(reason);
    await expect(result).rejects.toBe(reason);
    await vi.waitFor(() => expect(server!.inFlight.now).toBe(0));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it("a Request's own signal cancels a wait too", async () => {
    server = await startServer(scripted([status(503), ok]));
    const controller = new AbortController();
    const reason = new Error('navigated away');
    const request = new Request(server.url, { signal: controller.signal });
    const { env, pending } = recordingEnv({ auto: false });
    const result = fetchWithRetry(request, { retry: { backoff: constant(60_000), env, onRetry: () => queueMicrotask(() => controller.abort(reason)) } });
    await expect(result).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
    expect(pending()).toBe(0);
  });

  it('sends nothing when a signal is already aborted', async () => {
    const fetchSpy = vi.fn(globalThis.fetch);
    const reason = new Error('already');
    await expect(fetchWithRetry('http://127.0.0.1:9/', { signal: AbortSignal.abort(reason), retry: { fetch: fetchSpy } })).rejects.toBe(reason);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('fetchWithRetry and a shared budget', () => {
  it('a budget drained by one failing endpoint stops retries of other calls, and successes refill it', async () => {
    const flaky = new Map<string, number>();
    server = await startServer((_req, res, seen) => {
      if (seen.path === '/down') return status(503)(res);
      if (seen.path === '/ok') return ok(res);
      // /flaky: 503, 503, then 200: a retry of either call would succeed.
      const n = (flaky.get(seen.path) ?? 0) + 1;
      flaky.set(seen.path, n);
      return (n <= 2 ? status(503) : ok)(res);
    });
    const budget = createRetryBudget({ capacity: 20 });
    const retry = { budget, retries: 10, backoff: constant(1), env: recordingEnv().env };
    const count = (path: string) => server!.requests.filter((r) => r.path === path).length;

    expect((await fetchWithRetry(`${server.url}/down`, { retry })).status).toBe(503);
    expect(count('/down')).toBe(5); // 20 tokens pay for 4 retries of 5
    expect(budget.available).toBe(0);

    expect((await fetchWithRetry(`${server.url}/flaky`, { retry })).status).toBe(503);
    expect(count('/flaky')).toBe(1); // its retry would have succeeded, but nobody pays for it

    for (let i = 0; i < 5; i++) await fetchWithRetry(`${server.url}/ok`, { retry });
    expect(budget.available).toBe(5);

    expect((await fetchWithRetry(`${server.url}/flaky`, { retry })).status).toBe(200);
    expect(count('/flaky')).toBe(3);
    expect(budget.available).toBe(1); // paid 5, refunded 1
  });
});

describe('fetchWithRetry options', () => {
  it.each([
    [{ methods: 'GET' }, 'Expected `retry.methods` to be an array of strings'],
    [{ statusCodes: [503, 99] }, 'Expected `retry.statusCodes` to be an array of HTTP status codes (integers 100-599)'],
    [{ statusCodes: ['503'] }, 'Expected `retry.statusCodes` to be an array of HTTP status codes (integers 100-599)'],
    [{ maxRetryAfter: -5 }, 'Expected `retry.maxRetryAfter` to be a finite number >= 0'],
    [{ idempotencyKey: '' }, 'Expected `retry.idempotencyKey` to be a boolean or a non-empty string'],
    [{ idempotencyKey: 1 }, 'Expected `retry.idempotencyKey` to be a boolean or a non-empty string'],
    [{ fetch: 'fetch' }, 'Expected `retry.fetch` to be a function'],
    [{ retries: Number.POSITIVE_INFINITY }, 'Expected `retry.retries` to be a non-negative integer'],
    [{ budget: 500 }, 'Expected `retry.budget` to be a RetryBudget (see createRetryBudget)'],
  ])('refuses retry: %o with a TypeError naming the option, sending nothing', async (options, message) => {
    const fetchSpy = vi.fn(globalThis.fetch);
    const error = await fetchWithRetry('http://127.0.0.1:9/', { retry: { fetch: fetchSpy, ...options } as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(message);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('refuses a bad input, init and init.signal', async () => {
    await expect(fetchWithRetry('http://[::1', {})).rejects.toThrow('Expected `input` to be a valid URL string, URL or Request');
    await expect(fetchWithRetry('http://127.0.0.1:9/', 'GET' as never)).rejects.toThrow('Expected `init` to be an object');
    await expect(fetchWithRetry('http://127.0.0.1:9/', { signal: {} as AbortSignal })).rejects.toThrow('Expected `signal` to be an AbortSignal');
  });

  it('hands fetch a signal only when something can abort the call', async () => {
    server = await startServer(scripted([ok]));
    const signals: Array<AbortSignal | null | undefined> = [];
    const spy = (input: RequestInfo | URL, init?: RequestInit) => {
      signals.push(init?.signal);
      return fetch(input, init);
    };
    await fetchWithRetry(server.url, { retry: { fetch: spy } });
    await fetchWithRetry(server.url, { retry: { fetch: spy, timeout: 60_000 } });
    await fetchWithRetry(server.url, { signal: new AbortController().signal, retry: { fetch: spy } });
    expect(signals.map((signal) => signal instanceof AbortSignal)).toEqual([false, true, true]);
  });

  it('uses the global fetch looked up at call time', async () => {
    server = await startServer(scripted([ok]));
    const original = globalThis.fetch;
    const spy = vi.fn((...args: Parameters<typeof fetch>) => original(...args));
    globalThis.fetch = spy;
    try {
      await fetchWithRetry(server.url);
    } finally {
      globalThis.fetch = original;
    }
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
