import { afterEach, describe, expect, it } from 'vitest';
import { constant, HttpError, isPollGaveUpError, isTimeoutError, poll, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';
import { idleStepper } from './declined-clock.js';

// Issue 35, item 2, for poll: the engine's give-up reaches `onEvent` as a `give-up` event, the
// last event before the call rejects, over a real server.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const withoutTimes = (events: PollEvent[]): string[] =>
  events.map((e) => (e.type === 'give-up' ? `give-up ${e.attempt} ${e.reason} ${e.status ?? '-'}` : e.type));

describe('poll: a give-up event before it rejects', () => {
  it('retries used up: exhausted, with the attempt and status, then PollGaveUpError', async () => {
    server = await startServer(scripted([json(503, {})]));
    const events: PollEvent[] = [];
    const error = await poll(server.url, { isDone: () => false, retries: 1, backoff: constant(10), env: recordingEnv().env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(isPollGaveUpError(error)).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(withoutTimes(events)).toEqual(['request', 'response', 'retry', 'request', 'response', 'give-up 2 exhausted 503']);
  });

  it('a status that is never retried: not-retryable, then the HttpError', async () => {
    server = await startServer(scripted([json(404, {})]));
    const events: PollEvent[] = [];
    const error = await poll(server.url, { isDone: () => false, env: recordingEnv().env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(withoutTimes(events)).toEqual(['request', 'response', 'give-up 1 not-retryable 404']);
  });

  it('a deadline that leaves no time for another try: deadline, then the TimeoutError', async () => {
    server = await startServer(scripted([json(500, {})]));
    const events: PollEvent[] = [];
    const { env, fetch, settle } = idleStepper();
    const error = await settle(poll(server.url, { timeout: 1000, interval: 100, backoff: constant(500), retries: 10, env, fetch, onEvent: (e) => events.push(e) }));
    expect(isTimeoutError(error)).toBe(true);
    // interval + backoff = 600 ms: at 0, at 600, and a last try shortened to go out before the deadline (at 999).
    expect(server.requests).toHaveLength(3);
    expect(withoutTimes(events).at(-1)).toBe('give-up 3 deadline 500');
    expect(events.filter((e) => e.type === 'give-up')).toHaveLength(1);
  });

  it('no give-up on success, nor for a poll the caller stops', async () => {
    server = await startServer(scripted([json(200, { done: true })]));
    const events: PollEvent[] = [];
    await poll<{ done: boolean }>(server.url, { isDone: (job) => job.done, env: recordingEnv().env, onEvent: (e) => events.push(e) });
    const controller = new AbortController();
    const { env, pending } = recordingEnv({ auto: false });
    const stopped = poll(server.url, { isDone: () => false, interval: 60_000, signal: controller.signal, env, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    while (pending() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('stop'));
    expect(((await stopped) as Error).message).toBe('stop');
    expect(events.some((e) => e.type === 'give-up')).toBe(false);
  });
});
