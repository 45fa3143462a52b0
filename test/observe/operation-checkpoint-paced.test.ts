import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createOperationState } from '../../src/observe/index.js';
import { checkpoint, memoryStore } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, settle, until } from './helpers.js';

// docs/frameworks.md "Operations": the wait the 202 asks for is shown as the server's (`paced`, with `nextAttemptAt`
// and `secondsLeft` counting it down), and `retryNow()` ends it. With `operation.resume` (the setup the docs give every
// write), the wait is held by the checkpoint's hold, whose `wait` event had no `source`: the snapshot said paced: false
// through the whole Retry-After. The checkpoint's hold now tells the start answer's signal.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An operation with a checkpoint, started: its 202 asked for 3 s, and that wait has begun. */
async function startedWithCheckpoint() {
  server = await startServer((_req: IncomingMessage, res: ServerResponse, seen) => {
    const line = `${seen.method} ${seen.path}`;
    if (line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1', 'retry-after': '3' });
    if (line === 'GET /ops/1') return sendJson(res, 200, { status: 'Succeeded' });
    return sendJson(res, 404, {});
  });
  const clock = manualClock();
  const state = createOperationState(`${server.url}/reports`, {
    method: 'POST',
    operation: { interval: 1000, env: clock, idempotencyKey: true, fetchResult: false, resume: checkpoint({ store: memoryStore(), key: 'r' }) },
  });
  state.start();
  await until(() => clock.pending() > 0 && server!.requests.length === 1, 'the wait after the start');
  return { clock, state };
}

it("with operation.resume (the documented setup), the 202's Retry-After is shown as the server's wait", async () => {
  const { clock, state } = await startedWithCheckpoint();
  await settle();
  expect(clock.delays.at(-1)).toBe(3000);
  // Without `resume` this holds (test/observe/operation-state.test.ts); with it, it does not.
  expect(state.getSnapshot()).toMatchObject({ status: 'polling', paced: true, nextAttemptAt: clock.now() + 3000 });
  state.stop();
});

it("with operation.resume, retryNow() ends the 202's wait", async () => {
  const { state } = await startedWithCheckpoint();
  state.retryNow();
  await until(() => state.getSnapshot().status === 'done', 'done after Try now');
});
