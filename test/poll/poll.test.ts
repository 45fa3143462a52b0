import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, ParseError, PollGaveUpError, poll, type PollEvent } from '../../src/index.js';
import { until, virtualClock } from '../cooperate/helpers/virtual-clock.js';
import { recordingEnv } from '../helpers/env.js';
import { REFUSED_URL, json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
  progress?: number;
}
const isDone = (job: Job): boolean => job.status === 'done' || job.status === 'failed';

describe('poll against a real server', () => {
  it('polls until a terminal state, calling onUpdate with every body', async () => {
    server = await startServer(scripted([json(200, { status: 'queued' }), json(200, { status: 'running', progress: 50 }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv();
    const updates: Job[] = [];
    const result = await poll<Job>(`${server.url}/jobs/1`, { isDone, onUpdate: (job) => updates.push(job), interval: 1000, env });
    expect(result).toEqual({ status: 'done' });
    expect(updates.map((job) => job.status)).toEqual(['queued', 'running', 'done']);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /jobs/1', 'GET /jobs/1', 'GET /jobs/1']);
    expect(delays).toEqual([1000, 1000]);
  });

  it('stops on a failure state too', async () => {
    server = await startServer(scripted([json(200, { status: 'running' }), json(200, { status: 'failed' })]));
    const result = await poll<Job>(server.url, { isDone, env: recordingEnv().env });
    expect(result.status).toBe('failed');
    expect(server.requests).toHaveLength(2);
  });

  it('never has two requests in flight against a slow endpoint', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      n += 1;
      const body = { status: n >= 4 ? 'done' : 'running' };
      setTimeout(() => sendJson(res, 200, body), 60);
    });
    // interval 0: a setInterval poller would pile up; poll waits for each answer.
    await poll<Job>(server.url, { isDone, interval: 0 });
    expect(server.requests).toHaveLength(4);
    expect(server.inFlight.max).toBe(1);
  });

  it('resets failures after a success: 500s, success, 500s never give up with retries 2', async () => {
    const fail = json(500, { error: 'boom' });
    server = await startServer(scripted([fail, fail, json(200, { status: 'running' }), fail, fail, json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    const { env, delays } = recordingEnv({ random: 0.5 });
    const result = await poll<Job>(server.url, { isDone, retries: 2, interval: 100, backoff: (n) => n * 10, env, onEvent: (e) => events.push(e) });
    expect(result.status).toBe('done');
    expect(delays).toEqual([110, 120, 100, 110, 120]);
    expect(events.filter((e) => e.type === 'request').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('gives up after retries + 1 counted failures with PollGaveUpError', async () => {
    server = await startServer(scripted([json(503, { error: 'down' })]));
    const error = await poll(server.url, { retries: 3, env: recordingEnv().env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollGaveUpError);
    const gaveUp = error as PollGaveUpError;
    expect(gaveUp.attempts).toBe(4);
    expect(gaveUp.status).toBe(503);
    expect(gaveUp.cause).toBeInstanceOf(HttpError);
    expect((gaveUp.cause as HttpError).status).toBe(503);
    expect(server.requests).toHaveLength(4);
  });

  it('gives up on network failures with the network error as cause and no status', async () => {
    const error = (await poll(REFUSED_URL, { retries: 1, env: recordingEnv().env }).catch((e: unknown) => e)) as PollGaveUpError;
    expect(error).toBeInstanceOf(PollGaveUpError);
    expect(error.attempts).toBe(2);
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it.each([400, 401, 403, 404, 410, 422])('rejects a %i at once with HttpError, after one request, body unread', async (code) => {
    server = await startServer(scripted([json(code, { error: 'nope' })]));
    const error = (await poll(`${server.url}/x`, { env: recordingEnv().env }).catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(code);
    expect(error.url).toBe(`${server.url}/x`);
    expect(error.response.bodyUsed).toBe(false);
    expect(await error.response.json()).toEqual({ error: 'nope' });
    expect(server.requests).toHaveLength(1);
  });

  it('does not follow-retry an unfollowed 3xx', async () => {
    server = await startServer(scripted([(res) => res.writeHead(302, { location: '/elsewhere' }).end()]));
    const error = await poll(server.url, { init: { redirect: 'manual' }, env: recordingEnv().env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
  });

  it('honours Retry-After in seconds on 429 and 503, not counting them toward retries', async () => {
    server = await startServer(
      scripted([json(429, {}, { 'retry-after': '3' }), json(503, {}, { 'retry-after': '7' }), json(503, {}, { 'retry-after': '2' }), json(200, { status: 'done' })]),
    );
    const events: PollEvent[] = [];
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll<Job>(server.url, { isDone, retries: 0, interval: 1000, env, onEvent: (e) => events.push(e) });
    expect(delays).toEqual([3300, 7700, 2200]);
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => [e.status, e.retryAfter, e.attempt, e.reason])).toEqual([
      [429, 3000, 1, 'status'],
      [503, 7000, 1, 'status'],
      [503, 2000, 1, 'status'],
    ]);
  });

  it('honours Retry-After as an HTTP-date, measured against the injected clock', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    server = await startServer(scripted([json(503, {}, { 'retry-after': 'Thu, 01 Jan 2026 12:00:45 GMT' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0 });
    await poll<Job>(server.url, { isDone, env: { ...env, now: () => now } });
    expect(delays).toEqual([45_000]);
  });

  it('waits at most maxRetryAfter and never less than interval', async () => {
    server = await startServer(
      scripted([json(503, {}, { 'retry-after': '86400' }), json(503, {}, { 'retry-after': '0' }), json(200, { status: 'done' })]),
    );
    const { env, delays } = recordingEnv({ random: 0.9 });
    await poll<Job>(server.url, { isDone, interval: 500, maxRetryAfter: 10_000, env });
    // The cap is a hard maximum: a wait it cuts short is spread below it, over [cap / 1.2, cap], so
    // clients capped alike still part. A Retry-After of 0 is counted and waits the default backoff
    // (1.5 to 2.25 times the interval, at least a second: 1 s × (1.5 + 0.75 × 0.9)), at least a second plus the spread.
    expect(delays).toEqual([Math.ceil(10_000 / 1.2 + (10_000 - 10_000 / 1.2) * 0.9), 1000 * (1.5 + 0.75 * 0.9)]);
  });

  it('falls back to backoff on a malformed Retry-After and counts the failure', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': 'soon' }), json(503, {}, { 'retry-after': '1.5' }), json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, interval: 100, backoff: (n) => n * 1000, env, onEvent: (e) => events.push(e) });
    expect(delays).toEqual([1100, 2100]);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.retryAfter)).toEqual([null, null]);
  });

  it('retries 408 and every 5xx', async () => {
    server = await startServer(scripted([json(408, {}), json(500, {}), json(502, {}), json(504, {}), json(200, { status: 'done' })]));
    await poll<Job>(server.url, { isDone, env: recordingEnv().env });
    expect(server.requests).toHaveLength(5);
  });

  it('sends If-None-Match with the last ETag; a 304 is not parsed and resets failures', async () => {
    server = await startServer(
      scripted([
        json(200, { status: 'running' }, { etag: '"v1"' }),
        (res) => res.writeHead(304, { etag: '"v1"' }).end(),
        json(500, {}),
        (res) => res.writeHead(304).end(),
        json(200, { status: 'done' }, { etag: 'W/"v2"' }),
      ]),
    );
    const updates: Job[] = [];
    const events: PollEvent[] = [];
    let parses = 0;
    await poll<Job>(server.url, {
      isDone,
      env: recordingEnv().env,
      onUpdate: (job) => updates.push(job),
      onEvent: (e) => events.push(e),
      parse: async (response) => {
        parses += 1;
        return (await response.json()) as Job;
      },
    });
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"v1"', '"v1"', '"v1"', '"v1"']);
    expect(parses).toBe(2);
    expect(updates).toHaveLength(2);
    expect(events.filter((e) => e.type === 'request').map((e) => [e.attempt, e.conditional])).toEqual([
      [1, false], [1, true], [1, true], [2, true], [1, true],
    ]);
  });

  it('forgets the ETag when a 2xx comes without one, and never sends it with conditional: false', async () => {
    server = await startServer(scripted([json(200, { status: 'a' }, { etag: '"1"' }), json(200, { status: 'b' }), json(200, { status: 'done' })]));
    await poll<Job>(server.url, { isDone, env: recordingEnv().env });
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"1"', undefined]);
    await server.close();
    server = await startServer(scripted([json(200, { status: 'a' }, { etag: '"1"' }), json(200, { status: 'done' })]));
    await poll<Job>(server.url, { isDone, conditional: false, env: recordingEnv().env });
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined]);
  });

  it('merges init into every request and accepts a Request as input', async () => {
    server = await startServer(scripted([json(200, { status: 'running' }, { etag: '"e"' }), json(200, { status: 'done' })]));
    const request = new Request(`${server.url}/r`, { headers: { 'x-from-request': '1' } });
    await poll<Job>(request, { isDone, init: { headers: { authorization: 'Bearer t' } }, env: recordingEnv().env });
    expect(server.requests.map((r) => [r.path, r.headers['x-from-request'], r.headers.authorization, r.headers['if-none-match']])).toEqual([
      ['/r', '1', 'Bearer t', undefined],
      ['/r', '1', 'Bearer t', '"e"'],
    ]);
  });

  it('reads 204 as undefined and rejects an unparsable 2xx with ParseError', async () => {
    server = await startServer(scripted([(res) => res.writeHead(204).end()]));
    expect(await poll(server.url, { isDone: (data) => data === undefined })).toBeUndefined();
    await server.close();
    server = await startServer(scripted([(res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>')]));
    const error = (await poll(`${server.url}/p`).catch((e: unknown) => e)) as ParseError;
    expect(error).toBeInstanceOf(ParseError);
    expect([error.url, error.status, error.contentType]).toEqual([`${server.url}/p`, 200, 'text/html']);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('reads an empty 200 as undefined, so a HEAD request can be polled (a health check)', async () => {
    server = await startServer(scripted([(res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': '42' }).end()]));
    expect(await poll(server.url, { init: { method: 'HEAD' }, isDone: (data) => data === undefined })).toBeUndefined();
    expect(server.requests.map((r) => r.method)).toEqual(['HEAD']);
    await server.close();
    server = await startServer(scripted([(res) => res.writeHead(200, { 'content-type': 'application/json' }).end()]));
    expect(await poll(server.url, { isDone: (data) => data === undefined })).toBeUndefined();
  });

  it('reports every event in order', async () => {
    server = await startServer(scripted([json(429, {}, { 'retry-after': '1' }), json(200, { status: 'running' }), json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    const now = 1_000_000;
    const { env } = recordingEnv({ random: 0 });
    await poll<Job>(server.url, { isDone, interval: 500, env: { ...env, now: () => now }, onEvent: (e) => events.push(e) });
    expect(events.map((e) => ({ ...e, ...('ms' in e ? { ms: 0 } : {}) }))).toEqual([
      { type: 'request', attempt: 1, conditional: false },
      { type: 'response', status: 429, ms: 0 },
      // Paced by the server: not a failure (failures 0, `paced`).
      { type: 'retry', attempt: 1, failures: 0, delay: 1000, at: now + 1000, reason: 'status', status: 429, retryAfter: 1000, source: 'retry-after', paced: true },
      { type: 'request', attempt: 1, conditional: false },
      { type: 'response', status: 200, ms: 0 },
      // The 429 said this poller asks too often: the interval after it is stretched (500 ms × 2,
      // less 40 % of the excess for the success).
      { type: 'wait', delay: 800, at: now + 800 },
      { type: 'request', attempt: 1, conditional: false },
      { type: 'response', status: 200, ms: 0 },
    ]);
  });

  it('counts a per-request timeout as a failure with reason timeout', async () => {
    server = await startServer(scripted([() => undefined, json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    const result = await poll<Job>(server.url, { isDone, requestTimeout: 50, interval: 10, backoff: () => 0, onEvent: (e) => events.push(e) });
    expect(result.status).toBe('done');
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ reason: 'timeout', attempt: 1, failures: 1 });
  });
});

describe('poll: abort and deadlines', () => {
  it('rejects with signal.reason during fetch, leaving no listener', async () => {
    server = await startServer(() => undefined);
    const controller = new AbortController();
    const promise = poll(server.url, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects with signal.reason during a sleep, leaving no timer and no listener', async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const controller = new AbortController();
    const { env, pending } = recordingEnv({ auto: false });
    const promise = poll(server.url, { signal: controller.signal, interval: 60_000, env, onEvent: (e) => e.type === 'wait' && controller.abort() });
    await expect(promise).rejects.toMatchObject({ name: 'AbortError' });
    expect(pending()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  it('does not send anything when the signal is already aborted', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const reason = new Error('already');
    await expect(poll(server.url, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it("init.signal stops polling as signal does, during a wait: one request, its reason, no listener left", async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const controller = new AbortController();
    const reason = new Error('stop via init');
    const { env, pending } = recordingEnv({ auto: false });
    const promise = poll(server.url, { init: { signal: controller.signal }, interval: 60_000, env, onEvent: (e) => e.type === 'wait' && controller.abort(reason) });
    await expect(promise).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
    expect(pending()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("a Request's own signal stops polling during fetch with its reason (not a network failure to retry)", async () => {
    server = await startServer(() => undefined);
    const controller = new AbortController();
    const promise = poll(new Request(server.url, { signal: controller.signal }), { env: recordingEnv().env });
    await new Promise((r) => setTimeout(r, 50));
    const reason = new Error('stop via Request');
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an init.signal already aborted sends nothing; with signal too, whichever aborts first wins', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const reason = new Error('already');
    await expect(poll(server.url, { init: { signal: AbortSignal.abort(reason) } })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
    const outer = new AbortController();
    const inner = new AbortController();
    const promise = poll(server.url, { signal: outer.signal, init: { signal: inner.signal }, interval: 60_000, env: recordingEnv({ auto: false }).env });
    await new Promise((r) => setTimeout(r, 50));
    outer.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(getEventListeners(inner.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
  });

  it('a signal reused across many polls accumulates no listeners', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const controller = new AbortController();
    for (let i = 0; i < 200; i += 1) await poll<Job>(server.url, { isDone, signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('timeout rejects with a TimeoutError during fetch', async () => {
    server = await startServer(() => undefined);
    const error = (await poll(server.url, { timeout: 80 }).catch((e: unknown) => e)) as DOMException;
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('TimeoutError');
  });

  it('a deadline met after a recovery carries no stale failure as its cause; an interval that would cross it is shortened for a last try', async () => {
    server = await startServer(scripted([json(500, {}), json(200, { status: 'running' })]));
    const clock = virtualClock();
    const started = clock.now();
    const settled = poll(server.url, { timeout: 5000, interval: 3000, backoff: () => 0, env: clock.env() }).catch((e: unknown) => e);
    await until(() => server!.requests.length === 1 && clock.pending() === 2, 'the retry wait');
    await clock.advance(3000);
    // The next interval (3 s from 3 s) would cross the 5 s deadline: the last try goes 1 ms before it.
    await until(() => server!.requests.length === 2 && clock.pending() === 2, 'the shortened interval');
    await clock.advance(1999);
    await until(() => server!.requests.length === 3 && clock.pending() === 1, 'the wait for the deadline');
    await clock.advance(1);
    const error = (await settled) as DOMException & { cause: unknown };
    expect(error.name).toBe('TimeoutError');
    expect(error.message).toBe('Polling timed out after 5000 ms');
    expect(error.cause).toBeUndefined();
    expect(clock.now() - started).toBe(5000);
    expect(server.requests).toHaveLength(3);
  });

  it('a Retry-After past the deadline: TimeoutError at the deadline carrying the last failure, no wait timer of its own', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '60' })]));
    const { clock, env, delays } = recordingEnv({ auto: false });
    const events: PollEvent[] = [];
    const error = poll(server.url, { timeout: 5000, env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    // The 503's JSON body is read for a hint before the decision; no retry fits before the deadline: none is announced, the poll gives up.
    await until(() => events.some((e) => e.type === 'give-up') && clock.pending('env') === 1, 'the wait for the deadline');
    expect(events.filter((e) => e.type === 'retry' || e.type === 'give-up')).toEqual([{ type: 'give-up', attempt: 1, reason: 'deadline', status: 503 }]);
    await clock.advance(5000);
    const timedOut = (await error) as DOMException & { cause: unknown };
    expect(timedOut.name).toBe('TimeoutError');
    expect(timedOut.cause).toBeInstanceOf(HttpError);
    expect(delays).toEqual([5000]); // only the deadline timer itself
    expect(server.requests).toHaveLength(1);
  });
});

describe('poll: bad input', () => {
  it.each([
    [{ interval: -1 }, 'interval'],
    [{ interval: Number.NaN }, 'interval'],
    [{ interval: Infinity }, 'interval'],
    [{ retries: 1.5 }, 'retries'],
    [{ retries: -1 }, 'retries'],
    [{ isDone: true }, 'isDone'],
    [{ onUpdate: 'x' }, 'onUpdate'],
    [{ timeout: -5 }, 'timeout'],
    [{ requestTimeout: '5' }, 'requestTimeout'],
    [{ maxRetryAfter: Number.NaN }, 'maxRetryAfter'],
    [{ pauseWhenHidden: 1 }, 'pauseWhenHidden'],
    [{ signal: {} }, 'signal'],
    [{ fetch: 'nope' }, 'fetch'],
    [{ init: 5 }, 'init'],
  ])('rejects %j with a TypeError naming %s, sending nothing', async (options, name) => {
    server = await startServer(scripted([json(200, {})]));
    const error = (await poll(server.url, options as never).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(`\`${name}\``);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects an invalid URL with a TypeError', async () => {
    await expect(poll('http://[bad')).rejects.toThrow(/`input`/);
    await expect(poll(42 as never)).rejects.toThrow(TypeError);
  });
});
