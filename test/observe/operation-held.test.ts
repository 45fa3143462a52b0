import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createOperationState } from '../../src/observe/index.js';
import { checkpoint, memoryStore } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, settle, until } from './helpers.js';

// What an adversarial review checked and found to hold: the caller's signal and stop() during the 202's wait.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const opServer = (): Promise<TestServer> =>
  startServer((_req: IncomingMessage, res: ServerResponse, seen) => {
    const line = `${seen.method} ${seen.path}`;
    if (line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1', 'retry-after': '3' });
    if (line === 'GET /ops/1') return sendJson(res, 200, { status: 'Running' });
    return sendJson(res, 404, {});
  });

function counted(signal: AbortSignal): { live: () => number } {
  let n = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...a: Parameters<typeof add>) => ((n += 1), add(...a))) as typeof add;
  signal.removeEventListener = ((...a: Parameters<typeof remove>) => ((n -= 1), remove(...a))) as typeof remove;
  return { live: () => n };
}

it("the caller's init.signal stops the operation during the 202's wait: idle, no timer, its listener removed, checkpoint kept", async () => {
  server = await opServer();
  const clock = manualClock();
  const controller = new AbortController();
  const listeners = counted(controller.signal);
  const store = memoryStore();
  const state = createOperationState(`${server.url}/reports`, {
    method: 'POST',
    signal: controller.signal,
    operation: { env: clock, idempotencyKey: true, resume: checkpoint({ store, key: 'r' }) },
  });
  state.start();
  await until(() => clock.pending() > 0, 'the wait');
  expect(listeners.live()).toBe(1);
  controller.abort();
  expect(state.getSnapshot().status).toBe('idle');
  await settle();
  expect(clock.pending()).toBe(0);
  expect(listeners.live()).toBe(0);
  expect(await store.get('r')).toBeDefined();
  clock.advance(10_000);
  await settle();
  expect(server.requests.map((r) => r.method)).toEqual(['POST']);
});

it('stop() then retry() during the wait keeps the key: one POST, then the monitor no sooner than asked', async () => {
  server = await opServer();
  const clock = manualClock();
  const state = createOperationState(`${server.url}/reports`, {
    method: 'POST',
    operation: { env: clock, idempotencyKey: true, resume: checkpoint({ store: memoryStore(), key: 'r' }) },
  });
  state.start();
  await until(() => clock.pending() > 0, 'the wait');
  clock.advance(1000);
  state.stop();
  await settle();
  state.retry();
  await until(() => clock.pending() > 0, 'the resumed wait');
  clock.advance(1999);
  await settle();
  expect(server.requests.map((r) => r.method)).toEqual(['POST']);
  clock.advance(1);
  await until(() => server!.requests.length === 2, 'the monitor');
  expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /reports', 'GET /ops/1']);
  state.stop();
});
