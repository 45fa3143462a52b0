import { afterEach, describe, expect, it } from 'vitest';
import { constant, createRetryBudget, fetchWithRetry, HttpError, isTimeoutError, retry, type RetryInfo, type RetryOptions } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { idleStepper } from './declined-clock.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// Issue 35, item 2: a retry that will not happen is said, with its reason, through `onGiveUp`
// (the `give-up` event for poll: declined-poll-events.test.ts). Every test runs a real server and
// asserts what it received.

type GiveUp = Parameters<NonNullable<RetryOptions['onGiveUp']>>[0];

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The give-ups and retries of one call, and the options that record them. */
function recorder(): { gaveUp: GiveUp[]; retried: RetryInfo[]; on: Pick<RetryOptions, 'onGiveUp' | 'onRetry'> } {
  const gaveUp: GiveUp[] = [];
  const retried: RetryInfo[] = [];
  return { gaveUp, retried, on: { onGiveUp: (info) => gaveUp.push(info), onRetry: (info) => retried.push(info) } };
}

const unavailable = json(503, { error: 'busy' }, { 'retry-after': '1' });

describe('fetchWithRetry: a retry it declines says why', () => {
  it('a POST without an idempotency key, asked for 3 retries against a 503 with Retry-After: one request, then not-idempotent', async () => {
    server = await startServer(scripted([unavailable]));
    const { gaveUp, retried, on } = recorder();
    const response = await fetchWithRetry(`${server.url}/orders`, { method: 'POST', body: '{"sku":1}', retry: { retries: 3, env: recordingEnv().env, ...on } });
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /orders']);
    expect(retried).toEqual([]);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ reason: 'not-idempotent', attempt: 1 });
    const error = gaveUp[0]!.error as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.status).toBe(503);
    // The very response the call resolves with, its body left to the caller.
    expect(error.response).toBe(response);
    expect(await response.json()).toEqual({ error: 'busy' });
  });

  it('the same POST with an idempotency key is retried, and gives nothing up when it gets through', async () => {
    server = await startServer(scripted([unavailable, json(201, { id: 7 })]));
    const { gaveUp, retried, on } = recorder();
    const response = await fetchWithRetry(server.url, { method: 'POST', body: '{}', retry: { idempotencyKey: true, env: recordingEnv().env, ...on } });
    expect(response.status).toBe(201);
    expect(server.requests).toHaveLength(2);
    expect(retried).toHaveLength(1);
    expect(gaveUp).toEqual([]);
  });

  it('a stream body (sent once, even with a key): body-not-replayable', async () => {
    server = await startServer(scripted([unavailable]));
    const { gaveUp, on } = recorder();
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('chunk'));
        controller.close();
      },
    });
    const init = { method: 'PUT', body, duplex: 'half', retry: { idempotencyKey: 'k-1', env: recordingEnv().env, ...on } } as RequestInit;
    const response = await fetchWithRetry(server.url, init);
    expect(response.status).toBe(503);
    expect(server.requests.map((r) => r.body)).toEqual(['chunk']);
    expect(gaveUp.map(({ reason, attempt }) => ({ reason, attempt }))).toEqual([{ reason: 'body-not-replayable', attempt: 1 }]);
  });

  it('a 404 is not-retryable, and shouldRetry is never asked about it', async () => {
    server = await startServer(scripted([json(404, { error: 'gone' })]));
    const { gaveUp, on } = recorder();
    const asked: unknown[] = [];
    const response = await fetchWithRetry(server.url, { retry: { env: recordingEnv().env, shouldRetry: (error) => (asked.push(error), true), ...on } });
    expect(response.status).toBe(404);
    expect(server.requests).toHaveLength(1);
    expect(asked).toEqual([]);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ reason: 'not-retryable', attempt: 1 });
    expect((gaveUp[0]!.error as HttpError).status).toBe(404);
  });

  it('a POST answered 404 is not-retryable, not not-idempotent: a key would not make it retried', async () => {
    server = await startServer(scripted([json(404, {})]));
    const { gaveUp, on } = recorder();
    await fetchWithRetry(server.url, { method: 'POST', body: '{}', retry: { env: recordingEnv().env, ...on } });
    expect(gaveUp.map((g) => g.reason)).toEqual(['not-retryable']);
  });

  it('retries used up: exhausted, after the last attempt', async () => {
    server = await startServer(scripted([json(502, {}), json(500, {}), json(503, {})]));
    const { gaveUp, retried, on } = recorder();
    const response = await fetchWithRetry(server.url, { retry: { retries: 2, backoff: constant(10), env: recordingEnv().env, ...on } });
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(3);
    expect(retried.map((r) => r.attempt)).toEqual([1, 2]);
    expect(gaveUp.map(({ reason, attempt }) => ({ reason, attempt }))).toEqual([{ reason: 'exhausted', attempt: 3 }]);
  });

  it('a budget that cannot pay: budget', async () => {
    server = await startServer(scripted([json(503, {})]));
    const { gaveUp, retried, on } = recorder();
    const budget = createRetryBudget({ capacity: 4 }); // a retry costs 5
    const response = await fetchWithRetry(server.url, { retry: { budget, env: recordingEnv().env, ...on } });
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
    expect(retried).toEqual([]);
    expect(gaveUp.map(({ reason, attempt }) => ({ reason, attempt }))).toEqual([{ reason: 'budget', attempt: 1 }]);
  });

  it('a deadline that leaves no time for the next try: deadline, then the TimeoutError', async () => {
    server = await startServer(scripted([json(503, {})]));
    const { gaveUp, on } = recorder();
    const order: string[] = [];
    const { env, fetch, settle } = idleStepper();
    const error = await settle(
      fetchWithRetry(server.url, {
        retry: { retries: 10, timeout: 1000, backoff: constant(600), env, fetch, ...on, onGiveUp: (info) => (order.push('give-up'), on.onGiveUp!(info)) },
      }).catch((e: unknown) => {
        order.push('rejected');
        throw e;
      }),
    );
    expect(isTimeoutError(error)).toBe(true);
    // At 0, at 600, and a last try shortened to go out before the deadline (at 999); nothing after it.
    expect(server.requests).toHaveLength(3);
    expect(gaveUp.map(({ reason, attempt }) => ({ reason, attempt }))).toEqual([{ reason: 'deadline', attempt: 3 }]);
    expect((gaveUp[0]!.error as HttpError).status).toBe(503);
    expect(order).toEqual(['give-up', 'rejected']);
  });

  it('a 200 gives nothing up, and neither does an abort by the caller', async () => {
    server = await startServer(scripted([json(200, {})]));
    const { gaveUp, on } = recorder();
    await fetchWithRetry(server.url, { retry: { env: recordingEnv().env, ...on } });
    const controller = new AbortController();
    const { env, pending: timers } = recordingEnv({ auto: false });
    await server.close();
    server = await startServer(scripted([json(503, {})]));
    const pending = fetchWithRetry(server.url, { signal: controller.signal, retry: { env, backoff: constant(60_000), ...on } }).catch((e: unknown) => e);
    // Aborted during the wait before its retry.
    while (timers() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('stop'));
    expect(((await pending) as Error).message).toBe('stop');
    expect(gaveUp).toEqual([]);
  });
});

describe('retry: a retry it declines says why', () => {
  it('an error shouldRetry refuses: not-retryable, with that error, then the rejection', async () => {
    server = await startServer(scripted([json(404, {})]));
    const { gaveUp, on } = recorder();
    const url = server.url;
    const thrown = await retry(
      async ({ signal }) => {
        const response = await fetch(url, { signal });
        throw new HttpError(response, url);
      },
      { env: recordingEnv().env, ...on },
    ).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(1);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ reason: 'not-retryable', attempt: 1 });
    expect(gaveUp[0]!.error).toBe(thrown);
  });

  it('retries used up: exhausted, with the last error', async () => {
    server = await startServer(scripted([json(503, {})]));
    const { gaveUp, retried, on } = recorder();
    const url = server.url;
    const thrown = await retry(
      async ({ signal }) => {
        const response = await fetch(url, { signal });
        throw new HttpError(response, url);
      },
      { retries: 1, backoff: constant(5), cooldown: false, env: recordingEnv().env, ...on },
    ).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(2);
    expect(retried).toHaveLength(1);
    expect(gaveUp.map(({ reason, attempt }) => ({ reason, attempt }))).toEqual([{ reason: 'exhausted', attempt: 2 }]);
    expect(gaveUp[0]!.error).toBe(thrown);
  });

  it('onGiveUp is checked like every option', async () => {
    await expect(retry(async () => 1, { onGiveUp: 'log' as never })).rejects.toThrow(new TypeError('Expected `onGiveUp` to be a function'));
  });
});
