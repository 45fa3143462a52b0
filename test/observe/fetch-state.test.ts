import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, ParseError } from '../../src/index.js';
import { createFetchState, type FetchSnapshot } from '../../src/observe/index.js';
import { scripted, sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { manualClock, settle, until } from './helpers.js';

interface Report {
  rows: number;
}
const json =
  (status: number, body: unknown = {}, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);
const hold =
  (aborted: SeenRequest[]) =>
  (res: ServerResponse, seen: SeenRequest): void =>
    void res.on('close', () => res.writableEnded || aborted.push(seen));

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const brief = (s: FetchSnapshot<Report>, from: number) => [s.status, s.attempt, s.limit, s.nextAttemptAt === undefined ? '-' : s.nextAttemptAt - from];

describe('createFetchState against a real server, in an injected clock', () => {
  it('is loading from its creation (attempt 1 of 4) and sends nothing before start(); a null url is idle', async () => {
    server = await startServer(scripted([json(200, { rows: 1 })]));
    const state = createFetchState<Report>(server.url);
    expect(state.getSnapshot()).toEqual({ status: 'loading', loading: true, data: undefined, error: undefined, attempt: 1, limit: 4, nextAttemptAt: undefined, paced: false });
    await settle();
    expect(server.requests).toHaveLength(0);
    const none = createFetchState(null, { retries: 1 });
    none.start();
    await settle(5);
    expect(none.getSnapshot()).toMatchObject({ status: 'idle', loading: false, attempt: 0, limit: 2 });
  });

  it('retries with the default backoff, counting attempts as they leave; done keeps the attempt that got it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0); // the default backoff's jitter: 500 ms, then 1000 ms
    server = await startServer(scripted([json(503), json(500), json(200, { rows: 3 })]));
    const clock = manualClock();
    const state = createFetchState<Report>(`${server.url}/report`, { env: clock });
    const from = clock.now();
    const seen: unknown[] = [];
    state.subscribe(() => seen.push(brief(state.getSnapshot(), from)));
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    clock.advance(500);
    await until(() => state.getSnapshot().attempt === 2 && state.getSnapshot().nextAttemptAt !== undefined);
    clock.advance(1000);
    await until(() => state.getSnapshot().status === 'done');
    expect(seen).toEqual([
      ['loading', 1, 4, 500],
      ['loading', 2, 4, '-'],
      ['loading', 2, 4, 1500],
      ['loading', 3, 4, '-'],
      ['done', 3, 4, '-'],
    ]);
    expect(state.getSnapshot()).toMatchObject({ data: { rows: 3 }, loading: false });
  });

  it.each([400, 401, 403, 404])('fails at once on %i with an HttpError', async (status) => {
    server = await startServer(scripted([json(status)]));
    const state = createFetchState(server.url);
    state.start();
    await until(() => !state.getSnapshot().loading);
    const snapshot = state.getSnapshot();
    expect(snapshot.error).toBeInstanceOf(HttpError);
    expect((snapshot.error as HttpError).status).toBe(status);
    expect(snapshot.attempt).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after `retries` with the last response as an HttpError; retry() starts again from attempt 1', async () => {
    server = await startServer(scripted([json(503), json(503), json(200, { rows: 1 })]));
    const clock = manualClock();
    const state = createFetchState<Report>(server.url, { retries: 1, backoff: () => 1000, env: clock });
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    clock.advance(1000);
    await until(() => state.getSnapshot().status === 'error');
    expect((state.getSnapshot().error as HttpError).status).toBe(503);
    expect(state.getSnapshot()).toMatchObject({ attempt: 2, limit: 2 });
    state.retry();
    expect(state.getSnapshot()).toMatchObject({ status: 'loading', attempt: 1, error: undefined });
    await until(() => state.getSnapshot().status === 'done');
    expect(state.getSnapshot()).toMatchObject({ data: { rows: 1 }, attempt: 1 });
  });

  it("retryNow() sends at once during a Retry-After wait its own attempt set (the origin's cooldown included), with the same Idempotency-Key", async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '30' }), json(503, {}, { 'retry-after': '30' }), json(201, { rows: 1 })]));
    const clock = manualClock();
    const state = createFetchState<Report>(server.url, { init: { method: 'POST', body: '{}' }, idempotencyKey: true, env: clock });
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    expect(state.getSnapshot().nextAttemptAt).toBe(clock.now() + 30_000);
    state.retryNow();
    await until(() => state.getSnapshot().attempt === 2 && state.getSnapshot().nextAttemptAt !== undefined);
    state.retryNow();
    await until(() => state.getSnapshot().status === 'done');
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it('retryNow() keeps the total deadline, and does nothing while an attempt is in flight', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([json(503), hold(aborted)]));
    const clock = manualClock();
    const state = createFetchState(server.url, { backoff: (n) => n * 2000, timeout: 5000, env: clock });
    state.start();
    await until(() => state.getSnapshot().nextAttemptAt !== undefined);
    clock.advance(4000);
    state.retryNow();
    await until(() => server!.requests.length === 2);
    state.retryNow();
    await settle();
    expect(server.requests).toHaveLength(2);
    clock.advance(1000);
    await until(() => !state.getSnapshot().loading);
    expect((state.getSnapshot().error as DOMException).name).toBe('TimeoutError');
    await until(() => aborted.length === 1);
  });

  it('stop() aborts the request; idle, data kept; nothing of that run is shown afterwards', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer(scripted([json(200, { rows: 1 }), hold(aborted)]));
    const state = createFetchState<Report>(server.url);
    state.start();
    await until(() => state.getSnapshot().status === 'done');
    state.retry();
    await until(() => server!.requests.length === 2);
    const listener = vi.fn();
    state.subscribe(listener);
    state.stop();
    expect(state.getSnapshot()).toMatchObject({ status: 'idle', loading: false, data: { rows: 1 }, attempt: 0 });
    await until(() => aborted.length === 1);
    await settle();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('parses with the latest parse; a throw is a ParseError', async () => {
    server = await startServer(scripted([json(200, { rows: 5 }), (res) => void res.writeHead(200).end('not json')]));
    let factor = 1;
    const state = createFetchState<number>(server.url, () => ({ parse: async (r) => ((await r.json()) as Report).rows * factor }));
    factor = 10;
    state.start();
    await until(() => state.getSnapshot().status === 'done');
    expect(state.getSnapshot().data).toBe(50);
    const plain = createFetchState(server.url);
    plain.start();
    await until(() => plain.getSnapshot().status === 'error');
    expect(plain.getSnapshot().error).toBeInstanceOf(ParseError);
  });

  it('reports a bad option as an error naming it, sending nothing', async () => {
    server = await startServer(scripted([json(200)]));
    for (const options of [{ retries: -1 }, { fetch: 'nope' as unknown as typeof fetch }]) {
      const state = createFetchState(server.url, options);
      state.start();
      await until(() => state.getSnapshot().status === 'error');
      expect(state.getSnapshot().error).toBeInstanceOf(TypeError);
      expect((state.getSnapshot().error as Error).message).toMatch(/`(retries|fetch)`/);
    }
    expect(server.requests).toHaveLength(0);
  });
});
