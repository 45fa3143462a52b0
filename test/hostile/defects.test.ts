// Regression tests for the core rows of the adversarial pass (issue 13): each
// failed on the main of before the fix, against a real loopback server.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, isTimeoutError, ParseError, poll, PollGaveUpError, retry } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// Listeners on every AbortSignal and EventTarget, pollite's own signals included; undici's (owner
// 'fetch') on the signal pollite hands to fetch stay until the request is collected, so they are
// told apart by the frame that adds them.
const listeners = trackListeners();
afterAll(() => listeners.uninstall());

/** No listener of pollite's left on any signal or EventTarget, none of anyone's on the caller's signal; and pollite did listen. */
function expectNoListenersLeft(signal: AbortSignal): void {
  expect(listeners.live(undefined, 'code'), "pollite's listeners left").toEqual([]);
  expect(listeners.live(signal), "listeners left on the caller's signal").toEqual([]);
  expect(listeners.added('code'), 'listeners pollite added').toBeGreaterThan(0);
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isDone = (job: { status: string }): boolean => job.status === 'done';
/** A 200 whose body never ends: a chunk every few ms. */
const endless = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const timer = setInterval(() => res.write('1,'), 5);
  res.on('close', () => clearInterval(timer));
};

describe('#6 fetchWithRetry: signal, timeout and attemptTimeout follow the body past the headers', () => {
  it('aborting while the caller reads the body fails the read with the reason', async () => {
    server = await startServer(scripted([endless]));
    const controller = new AbortController();
    listeners.forget();
    const response = await fetchWithRetry(server.url, { signal: controller.signal });
    const reading = response.text().catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const reason = new Error('the user left');
    controller.abort(reason);
    expect(await reading).toBe(reason);
    expectNoListenersLeft(controller.signal);
  });

  it('timeout and attemptTimeout end an endless body with a TimeoutError', async () => {
    for (const retryOptions of [{ timeout: 150 }, { attemptTimeout: 150 }]) {
      server = await startServer(scripted([endless]));
      const started = Date.now();
      const response = await fetchWithRetry(server.url, { retry: retryOptions });
      const error = await response.text().catch((e: unknown) => e);
      expect(isTimeoutError(error), JSON.stringify(retryOptions)).toBe(true);
      expect(Date.now() - started).toBeLessThan(2000);
      await server.close();
    }
    server = undefined;
  });

  it('a body read to the end lets go of the signal and the timers', async () => {
    server = await startServer(scripted([json(200, { ok: true })]));
    const controller = new AbortController();
    const { env, pending } = recordingEnv({ auto: false });
    listeners.forget();
    const response = await fetchWithRetry(server.url, { signal: controller.signal, retry: { timeout: 10_000, env } });
    expect(pending()).toBe(1);
    expect(await response.json()).toEqual({ ok: true });
    expect(pending()).toBe(0);
    expectNoListenersLeft(controller.signal);
    expect(response.url).toBe(`${server.url}/`);
  });
});

describe('#7 a request fetch refuses is a bug: poll rejects at once, never retrying it', () => {
  it.each([
    ['a body on a GET', { init: { body: 'x' } }],
    ["method 'CONNECT'", { init: { method: 'CONNECT' } }],
    ["redirect: 'bogus'", { init: { redirect: 'bogus' as RequestRedirect } }],
  ])('%s', async (_label, options) => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv();
    const error = await poll(server.url, { ...options, isDone, env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(0);
    expect(delays).toEqual([]);
  });

  it('a fetch option that throws, or resolves to something that is not a Response', async () => {
    const bug = new RangeError('my fetch wrapper is broken');
    for (const fetch of [
      () => {
        throw bug;
      },
      async () => {
        throw bug;
      },
      () => 42,
      async () => null,
      async () => undefined,
      async () => ({}),
    ]) {
      const { env, delays } = recordingEnv();
      const error = await poll('http://127.0.0.1:2/', { fetch: fetch as unknown as typeof globalThis.fetch, env }).catch((e: unknown) => e);
      if (error !== bug) {
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(/^Expected `fetch` to resolve to a Response, got /);
      }
      expect(delays).toEqual([]);
    }
  });

  it('a ReadableStream body is refused before anything is sent: a poll sends its request many times', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const body = new ReadableStream({ start: (c) => c.close() });
    const error = await poll(server.url, { init: { method: 'POST', body, duplex: 'half' } as RequestInit }).catch((e: unknown) => e);
    expect((error as TypeError).message).toMatch(/^Expected `init.body` to be a body that can be sent again/);
    expect(server.requests).toHaveLength(0);
  });

  it('a parse that throws a TypeError after reading is a ParseError at once, not a network failure', async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const error = await poll(server.url, { parse: async (r) => ((await r.json()) as { a: { b: string } }).a.b, env: recordingEnv().env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParseError);
    expect((error as ParseError).cause).toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('#13 a Request input with a body (a stream) is sent once', () => {
  it('fetchWithRetry does not replay it, even with retries and a key', async () => {
    server = await startServer(scripted([json(503, {}), json(201, {})]));
    const request = new Request(server.url, { method: 'PUT', body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('x')), c.close()) }), duplex: 'half' } as RequestInit);
    const response = await fetchWithRetry(request, { retry: { retries: 2, idempotencyKey: true, env: recordingEnv().env } });
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => r.body)).toEqual(['x']);
  });
});

describe('#14 async isDone and onUpdate are awaited; their rejections reject poll', () => {
  it('isDone: async (job) => ... resolves at the terminal body, not the first', async () => {
    server = await startServer(scripted([json(200, { status: 'running' }), json(200, { status: 'done' })]));
    const job = await poll<{ status: string }>(server.url, { isDone: async (j) => j.status === 'done', env: recordingEnv().env });
    expect(job.status).toBe('done');
    expect(server.requests).toHaveLength(2);
  });

  it('an async onUpdate is awaited before the wait starts, and a rejection from either rejects poll (no unhandled rejection)', async () => {
    server = await startServer(scripted([json(200, { status: 'running' }), json(200, { status: 'done' })]));
    const order: string[] = [];
    const { env } = recordingEnv();
    await poll<{ status: string }>(server.url, {
      isDone,
      env: { ...env, setTimeout: (cb, ms) => (order.push(`wait ${ms}`), env.setTimeout!(cb, ms)) },
      interval: 5,
      onUpdate: async (j) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`updated ${j.status}`);
      },
    });
    expect(order).toEqual(['updated running', 'wait 5', 'updated done']);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const no = new Error('isDone broke');
      expect(await poll(server.url, { isDone: async () => Promise.reject(no), env: recordingEnv().env }).catch((e: unknown) => e)).toBe(no);
      const nope = new Error('onUpdate broke');
      expect(await poll(server.url, { onUpdate: async () => Promise.reject(nope), env: recordingEnv().env }).catch((e: unknown) => e)).toBe(nope);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('#17 a server that answers Retry-After: 0 forever gets a counted, paced failure, not a hot loop', () => {
  it('poll gives up after its retries, each wait at least a second', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '0' })]));
    const { env, delays } = recordingEnv({ random: 0 });
    const error = (await poll(server.url, { interval: 10, retries: 3, backoff: () => 0, env }).catch((e: unknown) => e)) as PollGaveUpError;
    expect(error).toBeInstanceOf(PollGaveUpError);
    expect(error.attempts).toBe(4);
    expect(server.requests).toHaveLength(4);
    expect(delays).toEqual([1000, 1000, 1000]);
  });

  it('fetchWithRetry waits at least a second between its tries', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '0' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const response = await fetchWithRetry(server.url, { retry: { backoff: () => 1, env } });
    expect(response.status).toBe(503);
    expect(delays).toEqual([1100, 1100, 1100]);
  });
});

describe('#18 many polls on one AbortSignal: one listener, no MaxListenersExceededWarning', () => {
  it('50 polls share one listener on the signal while they run, and leave none', async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    listeners.forget();
    try {
      const polls = Array.from({ length: 50 }, (_, i) => poll(`${server!.url}/${i}`, { interval: 10, signal: controller.signal }).catch((e: unknown) => e));
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(listeners.live(controller.signal)).toEqual([expect.stringMatching(/^'abort' on AbortSignal, added at .*on-abort\.ts/)]);
      controller.abort(new Error('done'));
      const outcomes = await Promise.all(polls);
      expect(outcomes.every((o) => (o as Error).message === 'done')).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expectNoListenersLeft(controller.signal);
  });
});

describe('#20 timeout: 0 is refused everywhere, naming the option, before anything is sent', () => {
  it('poll, retry and fetchWithRetry', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    let calls = 0;
    for (const [call, name] of [
      [() => poll(server!.url, { timeout: 0 }), 'timeout'],
      [() => retry(async () => void (calls += 1), { timeout: 0 }), 'timeout'],
      [() => fetchWithRetry(server!.url, { retry: { timeout: 0 } }), 'retry.timeout'],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(`Expected \`${name}\` to be a finite number > 0`);
    }
    expect([server.requests.length, calls]).toEqual([0, 0]);
  });
});

describe('bounded buffers: the default parser reads at most 16 MiB of a body a peer controls', () => {
  it('an endless chunked 2xx body is cut at the limit: a ParseError, not a heap that grows until the deadline', async () => {
    server = await startServer(scripted([(res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x31);
      const write = (): void => {
        while (res.write(chunk));
        res.once('drain', write);
      };
      write();
      res.on('close', () => res.removeAllListeners('drain'));
    }]));
    const error = (await poll(server.url, { env: recordingEnv().env }).catch((e: unknown) => e)) as ParseError;
    expect(error).toBeInstanceOf(ParseError);
    expect(String((error.cause as Error).message)).toBe('The body is larger than 16777216 bytes');
    expect(server.requests).toHaveLength(1);
  });

  it('a Content-Length above the limit is refused without reading the body', async () => {
    server = await startServer(scripted([(res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) });
      res.write('[');
    }]));
    const error = (await poll(server.url, { env: recordingEnv().env }).catch((e: unknown) => e)) as ParseError;
    expect(error).toBeInstanceOf(ParseError);
    expect(String((error.cause as Error).message)).toMatch(/larger than/);
  });
});

describe('found by the hostile-server property', () => {
  it('giving up frees the last answer: a 503 with an endless body does not keep its connection', async () => {
    let open = 0;
    server = await startServer((_req, res) => {
      open += 1;
      res.writeHead(503);
      const timer = setInterval(() => res.write('busy'), 5);
      res.on('close', () => {
        open -= 1;
        clearInterval(timer);
      });
    });
    const error = (await poll(server.url, { retries: 1, interval: 0, backoff: () => 0, timeout: 5000 }).catch((e: unknown) => e)) as PollGaveUpError;
    expect(error).toBeInstanceOf(PollGaveUpError);
    const started = Date.now();
    while (open > 0 && Date.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(open).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it("undici's internal assertion on a malformed status line ('HTTP/1.1  200') is a failure to retry, like every other malformed answer", async () => {
    const { startRawServer } = await import('./raw-server.js');
    const raw = await startRawServer((socket, index) =>
      socket.end(index === 0 ? 'HTTP/1.1  200 OK\r\nContent-Length: 2\r\n\r\n{}' : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{"status":"done"}'),
    );
    try {
      const job = await poll<{ status: string }>(raw.url, { isDone, interval: 0, backoff: () => 0 });
      expect(job.status).toBe('done');
      expect(raw.requests).toBe(2);
    } finally {
      await raw.close();
    }
  });
});

describe('fetch is called detached, as browsers and workerd require', () => {
  it('poll and fetchWithRetry never call a given fetch as a method of their options', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const strict = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      // A browser's fetch throws "Illegal invocation" when `this` is neither the global nor undefined.
      if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
      return fetch(input, init);
    } as typeof fetch;
    expect(await poll(server.url, { isDone, fetch: strict })).toEqual({ status: 'done' });
    expect((await fetchWithRetry(server.url, { retry: { fetch: strict } })).status).toBe(200);
    expect((await fetchWithRetry(server.url, { retry: { fetch: strict, timeout: 5000 } })).status).toBe(200);
  });
});
