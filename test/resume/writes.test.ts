import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { checkpoint, memoryStore, readCheckpoint, type MemoryStore } from '../../src/resume/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { recordingEnv } from '../helpers/env.js';
import type { TestServer } from '../helpers/server.js';
import { empty, json, lines, routes } from '../operation/helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const savedIn = (store: MemoryStore, key: string) => readCheckpoint(store.entries.get(key)!, key);

describe('fetchWithRetry with a checkpoint', () => {
  it('a write stopped during its Retry-After wait is sent again with the key it was sent with, never a new one, no sooner than the server asked', async () => {
    server = await routes({ 'POST /orders': [json(503, {}, { 'retry-after': '20' }), json(201, { id: 7 })] });
    const store = memoryStore();
    const controller = new AbortController();
    const first = recordingEnv({ auto: false });
    const stopped = fetchWithRetry(`${server.url}/orders`, {
      method: 'POST',
      body: '{"item":1}',
      retry: { env: first.env, cooldown: false, idempotencyKey: true, signal: controller.signal, resume: checkpoint({ store, key: 'order' }), onRetry: () => queueMicrotask(() => controller.abort()) },
    });
    await expect(stopped).rejects.toThrow();
    const state = savedIn(store, 'order');
    expect(state).toMatchObject({ kind: 'fetch', sent: true, request: { method: 'POST', url: `${server.url}/orders` } });
    const key = server.requests[0]!.headers['idempotency-key'];
    expect(state.idempotencyKey).toBe(key);
    expect(state.notBefore! - first.clock.now()).toBe(22_000);

    const began = Date.now();
    const second = new VirtualClock({ start: began, random: 0.5, recordDelays: true, auto: true });
    const response = await fetchWithRetry(`${server.url}/orders`, {
      method: 'POST',
      body: '{"item":1}',
      retry: { env: second.env(), cooldown: false, idempotencyKey: true, resume: checkpoint({ store, key: 'order' }) },
    });
    expect(response.status).toBe(201);
    expect(second.delays[0]).toBe(Math.ceil(state.notBefore! - began));
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([key, key]);
    expect(store.entries.size).toBe(0);
  });

  it('a write sent without a key whose answer was lost is refused, never sent again', async () => {
    server = await routes({ 'POST /orders': [(res) => setTimeout(() => json(201, {})(res, undefined as never), 5_000)] });
    const store = memoryStore();
    const controller = new AbortController();
    const sending = fetchWithRetry(`${server.url}/orders`, { method: 'POST', body: '{}', signal: controller.signal, retry: { resume: checkpoint({ store, key: 'order' }) } });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(sending).rejects.toThrow();
    const error = await fetchWithRetry(`${server.url}/orders`, { method: 'POST', body: '{}', retry: { resume: checkpoint({ store, key: 'order' }) } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CheckpointRefusedError', reason: 'sent-without-key' });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a resume option that is no checkpoint', async () => {
    await expect(fetchWithRetry('http://127.0.0.1:2/', { retry: { resume: {} as never } })).rejects.toThrow(/`retry\.resume` to be a checkpoint/);
  });
});

describe('pollOperation with a checkpoint', () => {
  const post = { method: 'POST', body: '{"month":1}' } as const;

  it('stopped during the start answer’s Retry-After: resumes at the monitor, no second start, no poll before the server asked; result once, checkpoint deleted', async () => {
    server = await routes({
      'POST /reports': [empty(202, { 'operation-location': '/ops/1', location: '/reports/1', 'retry-after': '10' })],
      'GET /ops/1': [json(200, { status: 'Running' }), json(200, { status: 'Succeeded' })],
      'GET /reports/1': [json(200, { rows: 42 })],
    });
    const store = memoryStore();
    const controller = new AbortController();
    const first = recordingEnv({ auto: false });
    const stopped = pollOperation(`${server.url}/reports`, {
      ...post,
      signal: controller.signal,
      operation: { env: first.env, cooldown: false, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }), onEvent: (e) => e.type === 'wait' && controller.abort() },
    });
    await expect(stopped).rejects.toThrow();
    const state = savedIn(store, 'report');
    expect(state).toMatchObject({ kind: 'operation', url: `${server.url}/ops/1`, monitor: { via: 'operation-location', location: `${server.url}/reports/1` }, sent: false, failures: 0 });
    expect(state.notBefore! - first.clock.now()).toBe(11_000);

    const began = Date.now();
    const second = new VirtualClock({ start: began, random: 0.5, recordDelays: true, auto: true });
    const report = await pollOperation(`${server.url}/reports`, {
      ...post,
      operation: { env: second.env(), cooldown: false, interval: 500, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }) },
    });
    expect(report).toEqual({ rows: 42 });
    expect(lines(server)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expect(second.delays[0]).toBe(Math.ceil(state.notBefore! - began));
    expect(store.entries.size).toBe(0);
  });

  it('a start whose answer was lost is sent again with its saved key only', async () => {
    let answered = 0;
    server = await routes({
      'POST /reports': [(res) => void setTimeout(() => res.destroy(), 20), empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/reports/1' })],
      'GET /reports/1': [(res, seen) => (answered++, json(200, { rows: 1 })(res, seen))],
    });
    const store = memoryStore();
    const controller = new AbortController();
    // The first start's connection is dropped, and the caller gives up before its retry: the answer is lost.
    const stopped = pollOperation(`${server.url}/reports`, {
      ...post,
      signal: controller.signal,
      operation: { env: recordingEnv({ auto: false }).env, cooldown: false, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }) },
    });
    while (!store.entries.has('report') || savedIn(store, 'report').notBefore === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(stopped).rejects.toThrow();
    expect(savedIn(store, 'report')).toMatchObject({ sent: true, failures: 1 });
    const report = await pollOperation(`${server.url}/reports`, {
      ...post,
      operation: { env: recordingEnv().env, cooldown: false, idempotencyKey: true, resume: checkpoint({ store, key: 'report' }) },
    });
    expect(report).toEqual({ rows: 1 });
    const keys = server.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    expect(answered).toBe(1);
  });

  it('a start without a key whose answer was lost is refused: CheckpointRefusedError, nothing sent', async () => {
    server = await routes({ 'POST /reports': [empty(202, { 'operation-location': '/ops/1' })] });
    const store = memoryStore();
    store.entries.set(
      'report',
      JSON.stringify({ v: 1, kind: 'operation', origin: server.url, request: { method: 'POST', url: `${server.url}/reports` }, failures: 0, sent: true, savedAt: Date.now() }),
    );
    const error = await pollOperation(`${server.url}/reports`, { ...post, operation: { resume: checkpoint({ store, key: 'report' }) } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'CheckpointRefusedError', reason: 'sent-without-key' });
    expect(server.requests).toHaveLength(0);
  });
});
