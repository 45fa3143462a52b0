import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, PollGaveUpError, poll, type PollEvent } from '../../src/index.js';
import { type PollFeature } from '../../src/kit/index.js';
import { switchable, until } from '../cooperate/helpers/virtual-clock.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';

// The edges of poll that mutation testing found untested: exact messages, the bounds of each
// comparison, which wakes end which wait, and what the first tick of a poll does.

let server: TestServer | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await server?.close();
  server = undefined;
});

interface Job {
  status: string;
}
const isDone = (job: Job): boolean => job.status === 'done';
/** The connection dropped before any answer: a network failure. */
const drop = (res: Parameters<typeof sendJson>[0]): void => void res.socket?.destroy();

describe('poll: the default backoff', () => {
  it('doubles with each failure in a row, from 1.5 to 2.25 times the interval, up to 30 s', async () => {
    const fail = json(500, {});
    server = await startServer(scripted([fail, fail, fail, fail, fail, fail, json(200, { status: 'done' })]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll<Job>(server.url, { isDone, interval: 1000, env });
    // 1000 × (1.5 + 0.75 × 0.5) × 2^(n-1), at most 30 000.
    expect(delays).toEqual([1875, 3750, 7500, 15_000, 30_000, 30_000]);
  });
});

describe('poll: what fetch gives back', () => {
  it('refuses a runtime without fetch when none is given, naming the option and sending nothing', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    vi.stubGlobal('fetch', undefined);
    await expect(poll(server.url)).rejects.toThrow(new TypeError('Expected `fetch` to be a function: this runtime has none'));
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an answer without headers as no Response', async () => {
    const fetchImpl = (async () => ({ status: 200 })) as unknown as typeof fetch;
    await expect(poll('http://127.0.0.1:2/', { fetch: fetchImpl, env: recordingEnv().env })).rejects.toThrow(
      new TypeError('Expected `fetch` to resolve to a Response, got [object Object]'),
    );
  });

  it('rejects a 300 (not followed) and a duck-typed 101 with HttpError, never parsing them', async () => {
    server = await startServer(scripted([json(300, { status: 'done' })]));
    const error = (await poll<Job>(server.url, { isDone, env: recordingEnv().env }).catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(300);
    const informational = { status: 101, statusText: 'Switching Protocols', headers: new Headers(), bodyUsed: false, body: null, json: async () => ({ status: 'done' }) };
    const upgrade = (await poll<Job>('http://127.0.0.1:2/up', { isDone, fetch: (async () => informational) as unknown as typeof fetch, env: recordingEnv().env }).catch(
      (e: unknown) => e,
    )) as HttpError;
    expect(upgrade).toBeInstanceOf(HttpError);
    expect(upgrade.message).toBe('HTTP 101 Switching Protocols from http://127.0.0.1:2/up');
  });

  it("reads each answer's status and headers once (every getter of a Response costs a brand check)", async () => {
    const etag = { etag: '"v1"' };
    server = await startServer(
      scripted([json(200, { status: 'running' }, etag), (res) => void res.writeHead(304, etag).end(), json(500, {}), json(200, { status: 'done' })]),
    );
    const reads: Record<string, number> = {};
    /** The real Response behind getters that count their calls. */
    const counted = (response: Response): Response => {
      const view = { json: () => response.json() } as Record<string, unknown>;
      for (const name of ['status', 'statusText', 'headers', 'body', 'bodyUsed', 'url']) {
        Object.defineProperty(view, name, { get: () => ((reads[name] = (reads[name] ?? 0) + 1), response[name as keyof Response]) });
      }
      return view as unknown as Response;
    };
    const job = await poll<Job>(server.url, {
      isDone,
      interval: 0,
      fetch: async (input, init) => counted(await fetch(input, init)),
      parse: (response) => response.json(),
      env: recordingEnv({ random: 0 }).env,
    });
    expect(job).toEqual({ status: 'done' });
    // Four answers: a 200, a 304 (its empty body looked at once), a 500 (its body discarded) and the 200 that ends it.
    expect(reads).toEqual({ status: 4, headers: 4, body: 2, bodyUsed: 1 });
  });

  it('hands fetch no signal when nothing can abort, and a signal when something can', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const signals: Array<AbortSignal | null | undefined> = [];
    const recording: typeof fetch = (input, init) => {
      signals.push(init?.signal);
      return fetch(input, init);
    };
    await poll<Job>(server.url, { isDone, fetch: recording, env: recordingEnv().env });
    await poll<Job>(server.url, { isDone, fetch: recording, signal: new AbortController().signal, env: recordingEnv().env });
    expect(signals.map((s) => (s === undefined ? 'none' : s instanceof AbortSignal ? 'signal' : String(s)))).toEqual(['none', 'signal']);
  });
});

describe('poll: the first tick', () => {
  it('sends the first request, or reports the pause, before poll returns', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    let sent = 0;
    const counting: typeof fetch = (input, init) => {
      sent += 1;
      return fetch(input, init);
    };
    const first = poll<Job>(server.url, { isDone, fetch: counting, env: recordingEnv().env });
    expect(sent).toBe(1);
    await first;

    const hidden = switchable(true);
    const events: PollEvent[] = [];
    const controller = new AbortController();
    const paused = poll(server.url, { signal: controller.signal, env: { ...recordingEnv().env, visibility: { hidden: hidden.is, subscribe: hidden.subscribe } }, onEvent: (e) => events.push(e) });
    expect(events).toEqual([{ type: 'pause', reason: 'hidden' }]);
    controller.abort(new Error('done'));
    await expect(paused).rejects.toThrow('done');
  });
});

describe('poll: events', () => {
  it("times a response from the request's leaving, in the clock's time", async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    let now = 1_000_000;
    const late: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      now += 250;
      return response;
    };
    const events: PollEvent[] = [];
    await poll<Job>(server.url, { isDone, fetch: late, env: { ...recordingEnv().env, now: () => now }, onEvent: (e) => events.push(e) });
    expect(events.find((e) => e.type === 'response')).toEqual({ type: 'response', status: 200, ms: 250 });
  });

  it('gives a network failure\'s retry event no status key at all', async () => {
    server = await startServer(scripted([drop, json(200, { status: 'done' })]));
    const events: PollEvent[] = [];
    const now = 2_000_000;
    await poll<Job>(server.url, { isDone, interval: 100, backoff: () => 50, env: { ...recordingEnv().env, now: () => now }, onEvent: (e) => events.push(e) });
    expect(events.find((e) => e.type === 'retry')).toStrictEqual({ type: 'retry', attempt: 1, failures: 1, delay: 150, at: now + 150, reason: 'network', retryAfter: null });
  });

  it("tells a feature's waiting hook when the next request is due", async () => {
    server = await startServer(scripted([json(200, { status: 'a' }), json(503, {}), json(200, { status: 'done' })]));
    const due: number[] = [];
    const feature: PollFeature = { attach: () => ({ waiting: (at) => void due.push(at) }) };
    const events: PollEvent[] = [];
    const now = 3_000_000;
    await poll<Job>(server.url, { isDone, interval: 100, backoff: () => 40, use: [feature], env: { ...recordingEnv().env, now: () => now }, onEvent: (e) => events.push(e) });
    expect(due).toEqual([now + 100, now + 140]);
    expect(events.filter((e) => e.type === 'wait' || e.type === 'retry').map((e) => (e as { at: number }).at)).toEqual(due);
  });
});

describe('poll: which wakes end which wait', () => {
  it('the network coming back ends the wait after a network failure; the page becoming visible does not', async () => {
    server = await startServer(scripted([drop, json(200, { status: 'done' })]));
    const visibility = switchable(false);
    const online = switchable(false);
    const { clock, env } = recordingEnv({ auto: false });
    const events: PollEvent[] = [];
    const settled = poll<Job>(server.url, {
      isDone,
      backoff: () => 60_000,
      env: { ...env, visibility: { hidden: visibility.is, subscribe: visibility.subscribe }, online: { offline: online.is, subscribe: online.subscribe } },
      onEvent: (e) => events.push(e),
    });
    await until(() => events.some((e) => e.type === 'retry'), 'the retry after the dropped connection');
    expect([visibility.listeners(), online.listeners()]).toEqual([0, 1]);
    visibility.set(false);
    expect(events.filter((e) => e.type === 'wake')).toEqual([]);
    online.set(false);
    expect(await settled).toEqual({ status: 'done' });
    expect(events.filter((e) => e.type === 'wake')).toEqual([{ type: 'wake', reason: 'online' }]);
    expect(server.requests).toHaveLength(2);
    expect(clock.pending('env')).toBe(0);
  });

  it('neither ends the wait after a retryable status', async () => {
    server = await startServer(scripted([json(503, {}), json(200, { status: 'done' })]));
    const visibility = switchable(false);
    const online = switchable(false);
    const { env } = recordingEnv({ auto: false });
    const events: PollEvent[] = [];
    const controller = new AbortController();
    const settled = poll<Job>(server.url, {
      isDone,
      signal: controller.signal,
      backoff: () => 60_000,
      env: { ...env, visibility: { hidden: visibility.is, subscribe: visibility.subscribe }, online: { offline: online.is, subscribe: online.subscribe } },
      onEvent: (e) => events.push(e),
    });
    await until(() => events.some((e) => e.type === 'retry'), 'the retry after the 503');
    expect([visibility.listeners(), online.listeners()]).toEqual([0, 0]);
    online.set(false);
    visibility.set(false);
    controller.abort(new Error('enough'));
    await expect(settled).rejects.toThrow('enough');
    expect(events.filter((e) => e.type === 'wake')).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('poll: deadlines', () => {
  it('names the timeout in its message, during fetch and per request', async () => {
    server = await startServer(() => undefined);
    const { env } = recordingEnv();
    const whole = (await poll(server.url, { timeout: 80, env }).catch((e: unknown) => e)) as DOMException;
    expect([whole.name, whole.message]).toEqual(['TimeoutError', 'Polling timed out after 80 ms']);
    const gaveUp = (await poll(server.url, { requestTimeout: 50, retries: 0, env: recordingEnv().env }).catch((e: unknown) => e)) as PollGaveUpError;
    expect(gaveUp).toBeInstanceOf(PollGaveUpError);
    expect([(gaveUp.cause as DOMException).name, (gaveUp.cause as DOMException).message]).toEqual(['TimeoutError', 'Request timed out after 50 ms']);
  });

  it('never undercuts a Retry-After that crosses the deadline: sends nothing more and rejects at the deadline, not before', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '60' })]));
    const { clock, env } = recordingEnv({ auto: false, random: 0.5 });
    const started = clock.now();
    let settled = false;
    const error = poll(server.url, { timeout: 5000, env }).catch((e: unknown) => e).finally(() => (settled = true));
    // Waiting for the deadline itself: only its own timer is pending.
    await until(() => server!.requests.length === 1 && clock.pending('env') === 1, 'the wait for the deadline');
    await clock.advance(4999);
    expect(settled).toBe(false);
    await clock.advance(1);
    const timedOut = (await error) as DOMException;
    expect([timedOut.name, timedOut.message]).toEqual(['TimeoutError', 'Polling timed out after 5000 ms']);
    expect(clock.now() - started).toBe(5000);
    expect(server.requests).toHaveLength(1);
  });

  it('starts a wait that ends exactly at the deadline, which then fires', async () => {
    server = await startServer(scripted([json(200, { status: 'running' })]));
    const events: PollEvent[] = [];
    const { clock, env } = recordingEnv({ auto: false });
    const settled = poll<Job>(server.url, { isDone, timeout: 3000, interval: 3000, env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    await until(() => events.some((e) => e.type === 'wait'), 'the interval wait');
    await clock.advance(3000);
    const error = (await settled) as DOMException;
    expect([error.name, error.message]).toEqual(['TimeoutError', 'Polling timed out after 3000 ms']);
    expect(server.requests).toHaveLength(1);
  });
});
