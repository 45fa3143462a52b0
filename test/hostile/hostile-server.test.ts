import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HttpError, ParseError, PollGaveUpError, isTimeoutError, poll, type PollEvent } from '../../src/index.js';
import { realTimersEnv, recordingEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { startRawServer, type RawServer } from './raw-server.js';

// A hostile server: every answer ends with a clear error or a safe fallback,
// within the configured timeouts, with no timer, listener or connection left.

// Every listener on every AbortSignal and EventTarget, pollite's own signals included. undici's
// (owner 'fetch') follow the per-request signal pollite hands to fetch until the request is
// garbage-collected; they are told apart by the frame that adds them, and must never sit on the
// caller's signal.
const listeners = trackListeners();
afterAll(() => listeners.uninstall());

let server: TestServer | undefined;
let raw: RawServer | undefined;
afterEach(async () => {
  await server?.close();
  await raw?.close();
  server = raw = undefined;
});

const done = (res: ServerResponse): void => sendJson(res, 200, { status: 'done' });
const isDone = (job: unknown): boolean => (job as { status?: string }).status === 'done';

/** Resolves once `check` holds, polling every 5 ms; the test's own timeout bounds it. */
async function eventually(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Runs poll with a caller's signal and a recording env; returns the outcome and what was left behind once it settled. */
async function hostilePoll(url: string, options: Parameters<typeof poll>[1] & { scale?: number } = {}) {
  const { scale = 1, ...rest } = options;
  const controller = new AbortController();
  // scale 1: real timers, racing the server's real latency; scale 0: the virtual clock, every wait ended at once.
  const { env, delays, pending } = scale === 0 ? recordingEnv({ random: 0 }) : realTimersEnv({ random: 0 });
  const events: PollEvent[] = [];
  listeners.forget();
  const error = await poll(url, { env, signal: controller.signal, onEvent: (e) => events.push(e), ...rest }).then(
    (value) => ({ resolved: value }),
    (e: unknown) => e,
  );
  const left = { timers: pending(), listeners: listeners.live(undefined, 'code'), onCallerSignal: listeners.live(controller.signal) };
  return { error, delays, events, left, added: listeners.added('code') };
}

/** No pollite timer armed, no listener of pollite's on any signal or EventTarget, none of anyone's on the caller's signal; and pollite did listen. */
function expectNothingLeft(outcome: Awaited<ReturnType<typeof hostilePoll>>): void {
  expect(outcome.left).toEqual({ timers: 0, listeners: [], onCallerSignal: [] });
  expect(outcome.added, 'listeners pollite added').toBeGreaterThan(0);
}

describe('poll against a hostile server', () => {
  it('an endless body: requestTimeout cancels the read, the failure is retried, then gives up; the server sees the stream cut', async () => {
    let streams = 0;
    let closed = 0;
    server = await startServer((_req, res) => {
      streams += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"running","padding":"');
      const timer = setInterval(() => res.write('x'.repeat(1024)), 2);
      res.on('close', () => {
        clearInterval(timer);
        closed += 1;
      });
    });
    // Regression: a 200 whose body then timed out used to reset the failure count, so this polled forever.
    const outcome = await hostilePoll(server.url, { requestTimeout: 1000, retries: 1, interval: 0, backoff: () => 0, isDone });
    expect(outcome.error).toBeInstanceOf(PollGaveUpError);
    expect((outcome.error as PollGaveUpError).attempts).toBe(2);
    expect(isTimeoutError((outcome.error as PollGaveUpError).cause)).toBe(true);
    // The headers came each time; the body never finished.
    expect(outcome.events.filter((e) => e.type === 'response').map((e) => (e as { status: number }).status)).toEqual([200, 200]);
    expect(outcome.events.filter((e) => e.type === 'retry').map((e) => [(e as { reason: string }).reason, (e as { attempt: number }).attempt])).toEqual([['timeout', 1]]);
    expect(server.requests).toHaveLength(2);
    await eventually(() => closed === streams);
    expectNothingLeft(outcome);
  });

  it('an endless body without requestTimeout: the total timeout ends it with a TimeoutError', async () => {
    let closed = false;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 2);
      res.on('close', () => {
        clearInterval(timer);
        closed = true;
      });
    });
    const outcome = await hostilePoll(server.url, { timeout: 1000, isDone });
    expect(isTimeoutError(outcome.error)).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(['request', 'response']);
    expect(server.requests).toHaveLength(1);
    await eventually(() => closed);
    expectNothingLeft(outcome);
  });

  it('a body larger than its Content-Length: only the advertised bytes are read, so the JSON is cut: ParseError', async () => {
    raw = await startRawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"status":"done","padding":"' + 'x'.repeat(100_000) + '"}');
    });
    const outcome = await hostilePoll(raw.url, { isDone, retries: 0 });
    expect(outcome.error).toBeInstanceOf(ParseError);
    expect(raw.requests).toBe(1);
    expectNothingLeft(outcome);
  });

  it('a body shorter than its Content-Length, then a closed connection: a network failure, retried, then given up; never a hang', async () => {
    raw = await startRawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"status":');
    });
    const outcome = await hostilePoll(raw.url, { isDone, retries: 1 });
    expect(outcome.error).toBeInstanceOf(PollGaveUpError);
    expect((outcome.error as PollGaveUpError).status).toBeUndefined();
    expect(String((outcome.error as PollGaveUpError).cause)).toMatch(/terminated|closed|aborted/i);
    expect(raw.requests).toBe(2);
    expectNothingLeft(outcome);
  });

  it('a 200 with an HTML page: ParseError naming the URL, status and content type, nothing retried', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><h1>Log in</h1>');
    });
    const outcome = await hostilePoll(`${server.url}/job`, { isDone });
    const error = outcome.error as ParseError;
    expect(error).toBeInstanceOf(ParseError);
    expect([error.url, error.status, error.contentType]).toEqual([`${server.url}/job`, 200, 'text/html; charset=utf-8']);
    expect(error.message).toContain('text/html');
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(server.requests).toHaveLength(1);
    expectNothingLeft(outcome);
  });

  it('invalid JSON: ParseError with the SyntaxError as cause', async () => {
    server = await startServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": "done",}'));
    const outcome = await hostilePoll(server.url, { isDone });
    expect(outcome.error).toBeInstanceOf(ParseError);
    expect((outcome.error as ParseError).cause).toBeInstanceOf(SyntaxError);
    expectNothingLeft(outcome);
  });

  it('a 304 without any prior ETag: read as "unchanged", polling goes on, no If-None-Match is ever invented', async () => {
    const notModified = (res: ServerResponse): void => void res.writeHead(304).end();
    server = await startServer(scripted([notModified, notModified, done]));
    const outcome = await hostilePoll(server.url, { isDone, interval: 50, scale: 0 });
    expect(outcome.error).toEqual({ resolved: { status: 'done' } });
    expect(outcome.delays).toEqual([50, 50]);
    expect(server.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined, undefined]);
    expectNothingLeft(outcome);
  });

  it('Retry-After: 99999999999 is held under maxRetryAfter, a hard cap: spread below it, over [cap / 1.2, cap]', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 503, {}, { 'retry-after': '99999999999' }), done]));
    const outcome = await hostilePoll(server.url, { isDone, maxRetryAfter: 60_000, scale: 0 });
    // random 0: the bottom of the spread below the cap, 60 s / 1.2.
    expect(outcome.delays).toEqual([50_000]);
    expect(outcome.events.find((e) => e.type === 'retry')).toMatchObject({ delay: 50_000, retryAfter: 60_000, paced: true, failures: 0 });
    expect(outcome.error).toEqual({ resolved: { status: 'done' } });
    expectNothingLeft(outcome);
  });

  it('Retry-After: 99999999999 with a 1 s timeout: sends nothing more, starts no wait it cannot finish, and times out at the deadline', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 503, {}, { 'retry-after': '99999999999' })]));
    // Real timers: the 503 must be in before the deadline passes (a virtual clock would fire the deadline at once, mid-request).
    const outcome = await hostilePoll(server.url, { isDone, timeout: 1000 });
    expect(isTimeoutError(outcome.error)).toBe(true);
    expect((outcome.error as Error).message).toBe('Polling timed out after 1000 ms');
    expect((outcome.error as { cause?: unknown }).cause).toBeInstanceOf(HttpError);
    expect((outcome.error as { cause: HttpError }).cause.status).toBe(503);
    // Only the deadline's own timer was ever armed: the server's floor (250 s) crosses the deadline, so no wait
    // was started, and the call ended when that timer fired: at the deadline, never before.
    expect(outcome.delays).toEqual([1000]);
    // No retry fits before the deadline: none is announced; the poll gives up on the 503 for the deadline.
    expect(outcome.events.find((e) => e.type === 'retry')).toBeUndefined();
    expect(outcome.events.find((e) => e.type === 'give-up')).toEqual({ type: 'give-up', attempt: 1, reason: 'deadline', status: 503 });
    expect(server.requests).toHaveLength(1);
    expectNothingLeft(outcome);
  });

  it('a redirect loop: fetch stops after 20 hops; poll fails at once with its error, never retrying it (another try follows the loop again)', async () => {
    server = await startServer((_req, res) => void res.writeHead(302, { location: '/loop' }).end());
    const outcome = await hostilePoll(`${server.url}/loop`, { isDone, retries: 1, backoff: () => 0, interval: 0, scale: 0 });
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(String((outcome.error as Error).cause)).toMatch(/redirect count exceeded/);
    // One attempt: the first request plus fetch's 20 redirects.
    expect(server.requests).toHaveLength(21);
    expectNothingLeft(outcome);
  });

  it("a redirect loop with redirect: 'manual': HttpError at once", async () => {
    server = await startServer((_req, res) => void res.writeHead(302, { location: '/loop' }).end());
    const outcome = await hostilePoll(`${server.url}/loop`, { isDone, init: { redirect: 'manual' } });
    expect(outcome.error).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
    expectNothingLeft(outcome);
  });

  it('a 1 MB ETag header: the response is refused as a network failure, retried, then given up', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { status: 'running' }, { etag: `"${'e'.repeat(1024 * 1024)}"` }));
    const outcome = await hostilePoll(server.url, { isDone, retries: 1, backoff: () => 0, interval: 0, scale: 0 });
    expect(outcome.error).toBeInstanceOf(PollGaveUpError);
    expect((outcome.error as PollGaveUpError).cause).toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(2);
    expectNothingLeft(outcome);
  });

  it('a status line that is not HTTP: a network failure, retried, then given up', async () => {
    raw = await startRawServer((socket) => socket.end('SMTP READY\r\n\r\n'));
    const outcome = await hostilePoll(raw.url, { isDone, retries: 2, backoff: () => 0, interval: 0, scale: 0 });
    expect(outcome.error).toBeInstanceOf(PollGaveUpError);
    expect((outcome.error as PollGaveUpError).attempts).toBe(3);
    expect(raw.requests).toBe(3);
    expectNothingLeft(outcome);
  });

  it('a server that accepts and never answers: requestTimeout makes each attempt a failure; connections are closed', async () => {
    raw = await startRawServer(() => undefined);
    const outcome = await hostilePoll(raw.url, { isDone, requestTimeout: 50, retries: 1, backoff: () => 0, interval: 0 });
    expect(outcome.error).toBeInstanceOf(PollGaveUpError);
    expect(isTimeoutError((outcome.error as PollGaveUpError).cause)).toBe(true);
    expect(outcome.events.filter((e) => e.type === 'request')).toHaveLength(2);
    // A request may time out before its bytes even reach a busy server.
    expect(raw.requests).toBeLessThanOrEqual(2);
    await eventually(() => raw!.open() === 0);
    expectNothingLeft(outcome);
  });
});
