import { afterEach, expect, it } from 'vitest';
import { share } from '../../src/cooperate/index.js';
import { createOperationState, createPollState } from '../../src/observe/index.js';
import type { PollFeature } from '../../src/poll/feature.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, settle } from './helpers.js';

// A bad option is an error snapshot with the TypeError naming it, nothing sent. `use` given as one feature, not a
// list (an easy slip: `use: share()`), was spread by the loop state before pollOperation or poll could check it: the
// throw escaped as an uncaught exception and the snapshot stayed `polling` for ever. Now it is passed on to be refused
// by name, and any throw of the run is an error snapshot.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const uncaught: unknown[] = [];
const onUncaught = (error: unknown): void => void uncaught.push(error);

it('operation.use given as a single feature is an error snapshot naming `operation.use`, not a snapshot stuck polling', async () => {
  server = await startServer((_req, res) => sendJson(res, 202, {}, { 'operation-location': '/ops/1' }));
  process.on('uncaughtException', onUncaught);
  try {
    const state = createOperationState(`${server.url}/reports`, {
      method: 'POST',
      operation: { env: manualClock(), use: share() as unknown as PollFeature[] },
    });
    state.start();
    await settle();
    expect(uncaught).toEqual([]);
    expect(state.getSnapshot().status).toBe('error');
    expect(state.getSnapshot().error).toBeInstanceOf(TypeError);
    expect((state.getSnapshot().error as Error).message).toMatch(/^Expected `operation\.use` to be an array/);
    expect(server.requests).toHaveLength(0);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

it('createPollState: `use` given as a single feature is an error snapshot naming `use`', async () => {
  server = await startServer((_req, res) => sendJson(res, 200, {}));
  uncaught.length = 0;
  process.on('uncaughtException', onUncaught);
  try {
    const state = createPollState(`${server.url}/job`, { env: manualClock(), use: share() as unknown as PollFeature[] });
    state.start();
    await settle();
    expect(uncaught).toEqual([]);
    expect(state.getSnapshot().status).toBe('error');
    expect((state.getSnapshot().error as Error).message).toMatch(/^Expected `use` to be an array/);
    expect(server.requests).toHaveLength(0);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});
