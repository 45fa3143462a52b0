// Issue 34: cleanup after a run that *finishes*, not only after an abort, and
// no countdown to a wait that a pause replaced.
import { getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createCountdown, createFetchState, createPollState } from '../../src/observe/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, switchable, until } from './helpers.js';

const json =
  (status: number, body: unknown = {}) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const RUNS = 12;

describe('a finished run leaves nothing on a long-lived signal', () => {
  it('a poll state run to done (and to an error) again and again', async () => {
    server = await startServer((_req, res, _seen, index) => json(index % 3 === 2 ? 404 : 200, { status: 'done' })(res));
    const app = new AbortController();
    const baseline = getEventListeners(app.signal, 'abort').length;
    const state = createPollState<{ status: string }>(server.url, { signal: app.signal, isDone: (job) => job.status === 'done' });
    for (let run = 0; run < RUNS; run += 1) {
      state.retry();
      await until(() => state.getSnapshot().status !== 'polling', `run ${run}`);
      expect(getEventListeners(app.signal, 'abort'), `after run ${run}`).toHaveLength(baseline);
    }
    // Fresh states on the same signal, as a list of jobs would make them.
    for (let run = 0; run < RUNS; run += 1) {
      const fresh = createPollState<{ status: string }>(server.url, { signal: app.signal, isDone: () => true });
      fresh.start();
      await until(() => fresh.getSnapshot().status !== 'polling', `fresh run ${run}`);
    }
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(baseline);
    expect(server.requests).toHaveLength(2 * RUNS);
  });

  it('a fetch state run to done (and to an error) again and again, its init.signal never listened to', async () => {
    server = await startServer((_req, res, _seen, index) => json(index % 3 === 2 ? 404 : 200, { rows: index })(res));
    const app = new AbortController();
    const baseline = getEventListeners(app.signal, 'abort').length;
    const state = createFetchState<{ rows: number }>(server.url, { init: { signal: app.signal } });
    for (let run = 0; run < RUNS; run += 1) {
      state.retry();
      await until(() => !state.getSnapshot().loading, `run ${run}`);
      expect(getEventListeners(app.signal, 'abort'), `after run ${run}`).toHaveLength(baseline);
    }
    expect(server.requests).toHaveLength(RUNS);
  });
});

describe('a pause after a failure', () => {
  it('unsets nextAttemptAt while paused: never "paused" and "next try in 0 s" at once', async () => {
    server = await startServer(scripted([json(500), json(200, { status: 'done' })]));
    const clock = manualClock();
    const hidden = switchable();
    const state = createPollState<{ status: string }>(server.url, {
      isDone: (job) => job.status === 'done',
      interval: 1000,
      backoff: () => 1000,
      env: { ...clock, visibility: { hidden: hidden.is, subscribe: hidden.subscribe } },
    });
    const countdown = createCountdown(state, clock);
    const both: unknown[] = [];
    countdown.subscribe(() => void (state.getSnapshot().paused && countdown.getSnapshot() !== undefined && both.push(countdown.getSnapshot())));
    state.subscribe(() => void (state.getSnapshot().paused && countdown.getSnapshot() !== undefined && both.push(countdown.getSnapshot())));
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined, 'the wait after the failure');
    expect(state.getSnapshot()).toMatchObject({ attempt: 1, paused: false, paced: false });
    hidden.set(true);
    clock.advance(2000);
    await until(() => state.getSnapshot().paused, 'the pause');
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', attempt: 1, paused: true, nextAttemptAt: undefined, paced: false });
    expect(countdown.getSnapshot()).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    hidden.set(false);
    await until(() => state.getSnapshot().status === 'done');
    expect(both).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });
});
