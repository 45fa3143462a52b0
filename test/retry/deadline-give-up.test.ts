import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, poll, type PollEvent, type RetryInfo, type RetryOptions } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// A new user's trial (issue 35): near a `timeout`, onRetry announced retries that never came (a delay of 0, once -1),
// and onGiveUp('deadline') fired in only half the runs: not when the deadline cut the retry in flight. Now the
// deadline gives up once, whenever it ends a call after a failure, and a retry is announced only when it fits.

type GiveUp = Parameters<NonNullable<RetryOptions['onGiveUp']>>[0];

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A 503 at once, then requests that hang until the server closes: the deadline passes during the retry. */
async function failsThenHangs(): Promise<TestServer> {
  let seen = 0;
  return startServer((_req, res) => {
    seen += 1;
    if (seen === 1) sendJson(res, 503, { error: 'busy' });
  });
}

describe('the deadline after a failure: one give-up, never a retry announced that does not come', () => {
  it('fetchWithRetry: the deadline cuts the retry in flight: onGiveUp once, deadline, for the failed attempt', async () => {
    server = await failsThenHangs();
    const gaveUp: GiveUp[] = [];
    const retried: RetryInfo[] = [];
    const error = await fetchWithRetry(server.url, {
      retry: { retries: 10, timeout: 1500, backoff: () => 0, onGiveUp: (info) => gaveUp.push(info), onRetry: (info) => retried.push(info) },
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    expect(server.requests).toHaveLength(2);
    expect(retried.map(({ attempt, delay }) => ({ attempt, delay }))).toEqual([{ attempt: 1, delay: 0 }]);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 1, reason: 'deadline' }]);
  });

  it('poll: the same, as events', async () => {
    server = await failsThenHangs();
    const events: PollEvent[] = [];
    const error = await poll(server.url, { isDone: () => true, timeout: 1500, interval: 10, backoff: () => 0, onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    expect(server.requests).toHaveLength(2);
    expect(events.filter((e) => e.type === 'give-up')).toEqual([{ type: 'give-up', attempt: 1, reason: 'deadline', status: 503 }]);
  });

  it('a Retry-After past the deadline: no retry announced, one give-up, no negative delay anywhere', async () => {
    server = await startServer((_req, res) => sendJson(res, 503, { error: 'busy' }, { 'retry-after': '30' }));
    const gaveUp: GiveUp[] = [];
    const retried: RetryInfo[] = [];
    const error = await fetchWithRetry(server.url, {
      retry: { retries: 10, timeout: 300, onGiveUp: (info) => gaveUp.push(info), onRetry: (info) => retried.push(info) },
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    expect(server.requests).toHaveLength(1);
    expect(retried).toEqual([]);
    expect(gaveUp.map(({ attempt, reason }) => ({ attempt, reason }))).toEqual([{ attempt: 1, reason: 'deadline' }]);
  });
});
