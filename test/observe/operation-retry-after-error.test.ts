import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createOperationState } from '../../src/observe/index.js';
import { checkpoint, memoryStore } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, until } from './helpers.js';

// An operation that ended in an error is over: its checkpoint is deleted (as for any call that rejects but by its
// caller's abort, docs/resume.md), so retry() after an error starts a new operation: a second start, with a key of its
// own. Only a stop (an abort) keeps the checkpoint for retry() to continue the same one (operation-state.test.ts).

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('retry() after the monitor gave up starts a new operation: a second start, with a new key', async () => {
  let monitorDown = true;
  server = await startServer((_req: IncomingMessage, res: ServerResponse, seen) => {
    const line = `${seen.method} ${seen.path}`;
    if (line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1' });
    if (line === 'GET /ops/1') return monitorDown ? sendJson(res, 503, {}) : sendJson(res, 200, { status: 'Succeeded' });
    return sendJson(res, 404, {});
  });
  const clock = manualClock();
  const state = createOperationState(`${server.url}/reports`, {
    method: 'POST',
    operation: { interval: 10, retries: 0, env: clock, idempotencyKey: true, fetchResult: false, resume: checkpoint({ store: memoryStore(), key: 'r' }) },
  });
  state.start();
  await until(() => clock.pending() > 0, 'the first wait');
  clock.advance(10);
  await until(() => state.getSnapshot().status === 'error', 'the monitor gives up');
  monitorDown = false;
  state.retry();
  await until(() => state.getSnapshot().status !== 'polling' || clock.pending() > 0, 'the retried run');
  clock.advance(10);
  await until(() => state.getSnapshot().status === 'done', 'done');
  const posts = server.requests.filter((r) => r.method === 'POST');
  expect(posts).toHaveLength(2);
  expect(posts[1]!.headers['idempotency-key']).not.toBe(posts[0]!.headers['idempotency-key']);
});
