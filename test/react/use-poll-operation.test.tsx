// @vitest-environment jsdom
import { cleanup, render, renderHook } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { usePollOperation } from '../../src/react/index.js';
import { checkpoint, memoryStore } from '../../src/resume/index.js';
import type { TestServer } from '../helpers/server.js';
import { operationServer } from '../observe/helpers.js';
import { advance, FAKE_TIMERS, paths, settle, until } from './helpers.js';

// usePollOperation against a real node:http server, in fake time: a start answered 202 with an
// Operation-Location and a Retry-After, a monitor Running then Succeeded, the result.

interface Progress {
  status: 'Running' | 'Succeeded' | 'Failed';
  percent?: number;
  resourceLocation?: string;
}
interface Report {
  rows: number;
}

let server: TestServer | undefined;
beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
  vi.spyOn(Math, 'random').mockReturnValue(0); // no spread above the server's wait
});
afterEach(async () => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});


/** The start's 202 asks for 2 s; the monitor answers Running at 40 %, then Succeeded; then the result. */
const reportServer = (): Promise<TestServer> => operationServer(2, [{ status: 'Running', percent: 40 }, { status: 'Succeeded', resourceLocation: '/reports/1' }]);

describe('usePollOperation against a real server, in fake time', () => {
  it("sends one start, waits the 202's Retry-After, shows the progress, then the result", async () => {
    server = await reportServer();
    const { result } = renderHook(() =>
      usePollOperation<Report, Progress>(`${server!.url}/reports`, { method: 'POST', body: '{"month":"2025-01"}', operation: { interval: 1000 } }),
    );
    expect(result.current).toMatchObject({ status: 'polling', progress: undefined, data: undefined });
    await until(() => server!.requests.length === 1);
    await settle();
    await advance(1999);
    expect(paths(server.requests)).toEqual(['POST /reports']);
    await advance(1);
    await until(() => result.current.progress?.percent === 40);
    expect(result.current).toMatchObject({ status: 'polling', data: undefined });
    await advance(1000);
    await until(() => result.current.status === 'done');
    expect(result.current).toMatchObject({ status: 'done', data: { rows: 42 }, error: undefined, progress: { status: 'Succeeded' } });
    expect(paths(server.requests)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expect(server.requests[0]!.body).toBe('{"month":"2025-01"}');
  });

  it('a null url starts nothing; under <StrictMode> a mount sends one start; unmounting stops the polls', async () => {
    server = await reportServer();
    const idle = renderHook(() => usePollOperation(null, { method: 'POST' }));
    await settle();
    expect(idle.result.current.status).toBe('idle');
    expect(server.requests).toHaveLength(0);

    let status = '';
    function Job() {
      status = usePollOperation(`${server!.url}/reports`, { method: 'POST', operation: { interval: 1000 } }).status;
      return null;
    }
    const view = render(
      <StrictMode>
        <Job />
      </StrictMode>,
    );
    await until(() => server!.requests.length === 1);
    await settle();
    await advance(2000);
    await until(() => server!.requests.length === 2);
    view.unmount();
    await advance(60_000);
    await settle();
    expect(paths(server.requests)).toEqual(['POST /reports', 'GET /ops/1']);
    expect(status).toBe('polling');
  });

  it('remounted with a checkpoint (a reload), it continues at the monitor: one start in all', async () => {
    server = await reportServer();
    const store = memoryStore();
    const options = () => ({ method: 'POST', operation: { interval: 1000, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }) } });
    const first = renderHook(() => usePollOperation<Report, Progress>(`${server!.url}/reports`, options()));
    await until(() => server!.requests.length === 1);
    await settle();
    await advance(2000);
    await until(() => first.result.current.progress?.percent === 40);
    first.unmount();
    expect(await store.get('report')).toBeDefined();
    const second = renderHook(() => usePollOperation<Report, Progress>(`${server!.url}/reports`, options()));
    await settle();
    await advance(1000);
    await until(() => second.result.current.status === 'done');
    expect(second.result.current.data).toEqual({ rows: 42 });
    expect(paths(server.requests)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expect(await store.get('report')).toBeUndefined();
  });
});
