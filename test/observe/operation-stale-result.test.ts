import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createOperationState } from '../../src/observe/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, until } from './helpers.js';

// `data` is the operation's result, set when `status` is `done`: a new run (retry()) shows none until it ends. The loop
// state used to keep `data` across retry() as a poll keeps its last body, so the previous run's result showed while
// the new operation ran, and in its error snapshot.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("retry() after done does not show the previous operation's result while the new one runs or fails", async () => {
  let n = 0;
  server = await startServer((_req: IncomingMessage, res: ServerResponse, seen) => {
    const line = `${seen.method} ${seen.path}`;
    if (line === 'POST /exports') return (n += 1) === 1 ? sendJson(res, 202, {}, { 'operation-location': '/ops/1' }) : sendJson(res, 400, {});
    if (line === 'GET /ops/1') return sendJson(res, 200, { status: 'Succeeded', result: { url: '/files/1' } });
    return sendJson(res, 404, {});
  });
  const clock = manualClock();
  const state = createOperationState<{ url: string }>(`${server.url}/exports`, { method: 'POST', operation: { interval: 0, env: clock } });
  state.start();
  await until(() => state.getSnapshot().status === 'done', 'the first export');
  expect(state.getSnapshot().data).toBeDefined();
  state.retry();
  expect(state.getSnapshot()).toMatchObject({ status: 'polling', data: undefined });
  await until(() => state.getSnapshot().status === 'error', 'the second export fails');
  expect(state.getSnapshot()).toMatchObject({ status: 'error', data: undefined });
});
