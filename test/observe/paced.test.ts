// Issue 34: a wait the server asked for (a paced retry: a Retry-After or a
// rate-limit reset of a second or more; an origin cooldown) is not a failure,
// and the snapshots say so with `paced`, so a UI never shows "attempt 1 failed".
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { PollEvent } from '../../src/index.js';
import { createCountdown, createFetchState, createPollState, type FetchSnapshot, type PollSnapshot } from '../../src/observe/index.js';
import { applyPollEvent } from '../../src/observe/poll-snapshot.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, until } from './helpers.js';

interface Job {
  status: 'running' | 'done';
}
const isDone = (job: Job): boolean => job.status === 'done';
const json =
  (status: number, body: unknown = {}, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
const serve = async (...answers: Array<(res: ServerResponse) => void>): Promise<TestServer> => {
  const server = await startServer(scripted(answers));
  servers.push(server);
  return server;
};

/** What a UI built on the README's example shows of a snapshot and its countdown. */
const line = (s: { attempt: number; limit: number; paced: boolean }, seconds: number | undefined): string =>
  seconds === undefined ? '' : `${s.paced ? 'Busy: the server asked us to wait' : `Attempt ${s.attempt} of ${s.limit} failed`}: next try in ${seconds} s`;

describe('applyPollEvent: paced', () => {
  const polling = (change: Partial<Extract<PollSnapshot<Job>, { status: 'polling' }>> = {}): PollSnapshot<Job> => ({
    status: 'polling',
    data: undefined,
    error: undefined,
    attempt: 1,
    limit: 9,
    nextAttemptAt: undefined,
    paused: false,
    paced: false,
    ...change,
  });
  const retry = (paced: boolean): PollEvent => ({
    type: 'retry',
    attempt: 1,
    failures: paced ? 0 : 1,
    delay: 2000,
    at: 5000,
    reason: 'status',
    status: 503,
    retryAfter: paced ? 2000 : null,
    ...(paced && { paced: true }),
  });

  it('a paced retry is paced; a counted failure is not', () => {
    expect(applyPollEvent(polling(), retry(true))).toMatchObject({ attempt: 1, nextAttemptAt: 5000, paced: true });
    expect(applyPollEvent(polling(), retry(false))).toMatchObject({ attempt: 1, nextAttemptAt: 5000, paced: false });
    // A counted failure after a paced one is a failure again.
    expect(applyPollEvent(applyPollEvent(polling(), retry(true)), retry(false))).toMatchObject({ paced: false });
  });

  it("another request's origin cooldown is a wait the server asked for", () => {
    const cooled = applyPollEvent(polling(), { type: 'cooldown', delay: 3000, at: 6000, origin: 'http://x' });
    expect(cooled).toMatchObject({ attempt: 1, nextAttemptAt: 6000, paced: true });
  });

  it.each<[string, PollEvent]>([
    ['request', { type: 'request', attempt: 2, conditional: false }],
    ['wake', { type: 'wake', reason: 'now' }],
    ['pause', { type: 'pause', reason: 'hidden' }],
  ])('%s ends the wait: paced is false, with nextAttemptAt unset', (_, event) => {
    const next = applyPollEvent(polling({ nextAttemptAt: 5000, paced: true }), event);
    expect(next).toMatchObject({ nextAttemptAt: undefined, paced: false });
  });

  it('a response, a wait after a success and a resume leave it; nothing changed is the same object', () => {
    const paced = polling({ nextAttemptAt: 5000, paced: true });
    expect(applyPollEvent(paced, { type: 'resume' })).toBe(paced);
    expect(applyPollEvent(paced, { type: 'wait', delay: 1000, at: 4000 })).toBe(paced);
    expect(applyPollEvent(paced, retry(true))).toBe(paced);
  });

  it("a wait a 2xx's pacing signal set (its source) is counted down and paced; the interval's is not", () => {
    const waiting = polling({});
    expect(applyPollEvent(waiting, { type: 'wait', delay: 3000, at: 4000, source: 'retry-after' })).toMatchObject({ nextAttemptAt: 4000, paced: true });
    expect(applyPollEvent(waiting, { type: 'wait', delay: 60_000, at: 61_000, source: 'x-poll-interval' })).toMatchObject({ nextAttemptAt: 61_000, paced: true });
    expect(applyPollEvent(waiting, { type: 'wait', delay: 1000, at: 2000 })).toBe(waiting);
  });

  it('changes nothing but a polling snapshot', () => {
    const idle: PollSnapshot<Job> = { status: 'idle', data: undefined, error: undefined, attempt: 0, limit: 9, nextAttemptAt: undefined, paused: false, paced: false };
    expect(applyPollEvent(idle, retry(true))).toBe(idle);
  });
});

describe('createPollState: a 503 with Retry-After: 2 from a real server', () => {
  const brief = (s: PollSnapshot<Job>, from: number) => [s.status, s.attempt, s.nextAttemptAt === undefined ? '-' : s.nextAttemptAt - from, s.paced];

  it('is paced, never shown as a failure; a 503 without one is a failure', async () => {
    const server = await serve(json(503, {}, { 'retry-after': '2' }), json(503), json(200, { status: 'done' }));
    const clock = manualClock();
    const state = createPollState<Job>(server.url, { isDone, interval: 1000, backoff: () => 500, env: clock });
    const countdown = createCountdown(state, clock);
    const from = clock.now();
    const seen: unknown[] = [];
    const shown: string[] = [];
    state.subscribe(() => seen.push(brief(state.getSnapshot(), from)));
    countdown.subscribe(() => shown.push(line(state.getSnapshot(), countdown.getSnapshot())));
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined, 'the paced wait');
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', attempt: 1, paced: true, nextAttemptAt: from + 2000 });
    expect(line(state.getSnapshot(), countdown.getSnapshot())).toBe('Busy: the server asked us to wait: next try in 2 s');
    clock.advance(2000);
    await until(() => state.getSnapshot().nextAttemptAt === from + 3500, 'the counted failure');
    expect(line(state.getSnapshot(), countdown.getSnapshot())).toBe('Attempt 1 of 9 failed: next try in 2 s');
    clock.advance(1500);
    await until(() => state.getSnapshot().status === 'done');
    expect(seen).toEqual([
      ['polling', 1, '-', false],
      ['polling', 1, 2000, true], // paced: the attempt is not counted
      ['polling', 1, '-', false],
      ['polling', 1, 3500, false], // the 503 without Retry-After: attempt 1 failed
      ['polling', 2, '-', false],
      ['polling', 1, '-', false], // the success
      ['polling', 1, '-', false], // its body
      ['done', 2, '-', false],
    ]);
    expect(shown).toEqual([
      'Busy: the server asked us to wait: next try in 2 s',
      'Busy: the server asked us to wait: next try in 1 s',
      'Busy: the server asked us to wait: next try in 0 s',
      '',
      'Attempt 1 of 9 failed: next try in 2 s',
      'Attempt 1 of 9 failed: next try in 1 s',
      'Attempt 1 of 9 failed: next try in 0 s',
      '',
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it("another poll's cooldown of the origin is paced too: this one never sent a request", async () => {
    const server = await serve(json(503, {}, { 'retry-after': '2' }), json(200, { status: 'done' }));
    const clock = manualClock();
    const first = createPollState<Job>(`${server.url}/a`, { isDone, interval: 1000, env: clock });
    first.start();
    await until(() => first.getSnapshot().paced, 'the first poll paced');
    const second = createPollState<Job>(`${server.url}/b`, { isDone, interval: 1000, env: clock });
    second.start();
    await until(() => second.getSnapshot().nextAttemptAt !== undefined, 'the cooldown');
    expect(second.getSnapshot()).toMatchObject({ status: 'polling', attempt: 1, paced: true });
    expect(server.requests.map((r) => r.path)).toEqual(['/a']);
    clock.advance(2000);
    await until(() => first.getSnapshot().status === 'done' && second.getSnapshot().status === 'done');
    expect([first.getSnapshot().paced, second.getSnapshot().paced]).toEqual([false, false]);
  });
});

describe('createFetchState: a 503 with Retry-After: 2 from a real server', () => {
  const brief = (s: FetchSnapshot<Job>, from: number) => [s.status, s.attempt, s.nextAttemptAt === undefined ? '-' : s.nextAttemptAt - from, s.paced];

  it('is paced while waiting, never shown as a failure; a 503 without one is a failure', async () => {
    const server = await serve(json(503, {}, { 'retry-after': '2' }), json(503), json(200, { status: 'done' }));
    const clock = manualClock();
    const state = createFetchState<Job>(server.url, { backoff: () => 500, env: clock });
    expect(state.getSnapshot().paced).toBe(false);
    const countdown = createCountdown(state, clock);
    countdown.subscribe(() => undefined);
    const from = clock.now();
    const seen: unknown[] = [];
    state.subscribe(() => seen.push(brief(state.getSnapshot(), from)));
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined, 'the paced wait');
    expect(line(state.getSnapshot(), countdown.getSnapshot())).toBe('Busy: the server asked us to wait: next try in 2 s');
    clock.advance(2000);
    await until(() => state.getSnapshot().nextAttemptAt === from + 2500, 'the counted failure');
    expect(line(state.getSnapshot(), countdown.getSnapshot())).toBe('Attempt 2 of 4 failed: next try in 1 s');
    clock.advance(500);
    await until(() => state.getSnapshot().status === 'done');
    expect(seen).toEqual([
      ['loading', 1, 2000, true],
      ['loading', 2, '-', false],
      ['loading', 2, 2500, false],
      ['loading', 3, '-', false],
      ['done', 3, '-', false],
    ]);
  });

  it('stop() while paced is idle and not paced; an error is not paced', async () => {
    const server = await serve(json(503, {}, { 'retry-after': '2' }), json(404));
    const clock = manualClock();
    const state = createFetchState<Job>(server.url, { env: clock });
    state.start();
    await until(() => state.getSnapshot().paced, 'the paced wait');
    state.stop();
    expect(state.getSnapshot()).toMatchObject({ status: 'idle', paced: false });
    state.retry();
    // The 503's cooldown of the origin holds the new run (unseen by a fetch state) until the clock moves.
    await until(() => clock.pending() > 0, 'the cooldown');
    clock.advance(2000);
    await until(() => state.getSnapshot().status === 'error');
    expect(state.getSnapshot().paced).toBe(false);
  });
});
