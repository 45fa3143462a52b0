import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/index.js';
import { createOperationState, type OperationSnapshot } from '../../src/observe/index.js';
import { checkpoint, memoryStore } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, operationServer, settle, until } from './helpers.js';

// createOperationState: pollOperation as a UI sees it, against a real node:http server (a start answered 202 with
// an Operation-Location and a Retry-After, a monitor Running then Succeeded, a result), in an injected clock.

interface Progress {
  status: 'NotStarted' | 'Running' | 'Succeeded' | 'Failed';
  percent?: number;
  resourceLocation?: string;
  error?: { code: string; message: string };
}
interface Report {
  rows: number;
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});


const lines = (s: TestServer): string[] => s.requests.map((r) => `${r.method} ${r.path}`);
const brief = (s: OperationSnapshot<Report, Progress>) => [s.status, s.progress?.percent ?? '-', s.data?.rows ?? '-'];

describe('createOperationState against a real server, in an injected clock', () => {
  it('is idle with no progress and sends nothing before start()', async () => {
    server = await operationServer(1, [{ status: 'Succeeded' }]);
    const state = createOperationState<Report, Progress>(`${server.url}/reports`, { method: 'POST', operation: { retries: 2 } });
    expect(state.getSnapshot()).toEqual({ status: 'idle', data: undefined, error: undefined, attempt: 0, limit: 3, nextAttemptAt: undefined, paused: false, paced: false, progress: undefined });
    await settle();
    expect(server.requests).toHaveLength(0);
  });

  it("starts once, honours the 202's Retry-After, shows the monitor's progress, and ends done with the result", async () => {
    server = await operationServer(3, [
      { status: 'Running', percent: 40 },
      { status: 'Succeeded', percent: 100, resourceLocation: '/reports/1' },
    ]);
    const clock = manualClock();
    const state = createOperationState<Report, Progress>(`${server.url}/reports`, {
      method: 'POST',
      body: '{"month":"2025-01"}',
      operation: { interval: 1000, env: clock },
    });
    const seen: unknown[] = [];
    state.subscribe(() => seen.push(brief(state.getSnapshot())));
    state.start();
    state.start();
    await until(() => clock.pending() > 0 && server!.requests.length === 1, 'the wait after the start');
    // random() is 0: the 3 s the start answer asked for, not the 1 s interval.
    expect(clock.delays.at(-1)).toBe(3000);
    // Shown as the server's wait, counted down: "busy, next check in 3 s".
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', paced: true, nextAttemptAt: clock.now() + 3000 });
    clock.advance(2999);
    await settle();
    expect(lines(server)).toEqual(['POST /reports']);
    clock.advance(1);
    await until(() => state.getSnapshot().progress?.percent === 40, 'the first progress');
    clock.advance(1000);
    await until(() => state.getSnapshot().status === 'done', 'done');
    expect(lines(server)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expect(state.getSnapshot()).toMatchObject({ status: 'done', data: { rows: 42 }, error: undefined, progress: { status: 'Succeeded', percent: 100 } });
    expect(seen.filter((s, i) => JSON.stringify(s) !== JSON.stringify(seen[i - 1]))).toEqual([
      ['polling', '-', '-'],
      ['polling', 40, '-'],
      ['polling', 100, '-'],
      ['done', 100, 42],
    ]);
  });

  it("a failed operation is an error snapshot carrying pollite's OperationFailedError, the last progress kept", async () => {
    server = await operationServer(0, [{ status: 'Failed', percent: 10, error: { code: 'QuotaExceeded', message: 'no room' } }]);
    const state = createOperationState<Report, Progress>(`${server.url}/reports`, { method: 'POST', operation: { interval: 1, env: manualClock() } });
    state.start();
    await until(() => state.getSnapshot().status === 'error', 'the error');
    const now = state.getSnapshot();
    expect((now.error as Error).name).toBe('OperationFailedError');
    expect((now.error as Error).message).toContain('QuotaExceeded');
    expect(now.progress).toEqual({ status: 'Failed', percent: 10, error: { code: 'QuotaExceeded', message: 'no room' } });
    expect(now.data).toBeUndefined();
  });

  it('stop() aborts the wait and keeps the progress; retry() with a checkpoint continues at the monitor, with no second start', async () => {
    server = await operationServer(0, [
      { status: 'Running', percent: 40 },
      { status: 'Succeeded', resourceLocation: '/reports/1' },
    ]);
    const clock = manualClock();
    const store = memoryStore();
    const state = createOperationState<Report, Progress>(`${server.url}/reports`, {
      method: 'POST',
      operation: { interval: 5000, env: clock, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }) },
    });
    state.start();
    await until(() => state.getSnapshot().progress?.percent === 40 && clock.pending() > 0, 'the first progress, then a wait');
    state.stop();
    expect(state.getSnapshot()).toMatchObject({ status: 'idle', progress: { percent: 40 } });
    expect(await store.get('report')).toBeDefined();
    state.retry();
    expect(state.getSnapshot()).toMatchObject({ status: 'polling', progress: { percent: 40 } });
    await until(() => clock.pending() > 0 && state.getSnapshot().status === 'polling', 'the resumed wait');
    clock.advance(5000);
    await until(() => state.getSnapshot().status === 'done', 'done');
    expect(lines(server)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expect(state.getSnapshot().data).toEqual({ rows: 42 });
    expect(await store.get('report')).toBeUndefined();
  });

  it('a start refused with a 400 is an error snapshot with the HttpError; a null url starts nothing', async () => {
    server = await startServer((_req, res) => sendJson(res, 400, { title: 'bad month' }));
    const state = createOperationState(`${server.url}/reports`, { method: 'POST', operation: { env: manualClock() } });
    state.start();
    await until(() => state.getSnapshot().status === 'error', 'the error');
    expect(state.getSnapshot().error).toBeInstanceOf(HttpError);
    expect(server.requests).toHaveLength(1);
    const none = createOperationState(null, { method: 'POST' });
    none.start();
    await settle();
    expect(none.getSnapshot().status).toBe('idle');
    expect(server.requests).toHaveLength(1);
  });

  it('a bad option is an error snapshot with the TypeError naming it where it was given, nothing sent', async () => {
    server = await operationServer(0, [{ status: 'Succeeded' }]);
    const state = createOperationState(`${server.url}/reports`, { method: 'POST', operation: { interval: -1 } });
    state.start();
    await until(() => state.getSnapshot().status === 'error', 'the error');
    expect(state.getSnapshot().error).toEqual(new TypeError('Expected `operation.interval` to be a finite number >= 0'));
    expect(server.requests).toHaveLength(0);
  });
});
