import { afterEach, describe, expect, it } from 'vitest';
import { share, shareTabs } from '../../src/cooperate/index.js';
import { poll } from '../../src/index.js';
import { type PollFeature } from '../../src/kit/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// A feature after share() or shareTabs() whose `run` throws at once: every
// caller gets its error, as without the share, and the next poll of the same
// request starts afresh (a loop that never ran was left under its key, and
// every later caller joined it and waited for ever).

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const broken: PollFeature = {
  run: () => {
    throw new Error('feature broke');
  },
};

describe('a feature that throws at once behind a shared loop', () => {
  it.each([
    ['share()', share],
    ['shareTabs()', shareTabs],
  ])('%s: each poll of the request rejects with its error, and none is sent', async (_name, feature) => {
    server = await startServer((_req, res) => sendJson(res, 200, { n: 1 }));
    const url = `${server.url}/job`;
    await expect(poll(url, { use: [broken], isDone: () => false })).rejects.toThrow(new Error('feature broke'));
    const shared = feature();
    await expect(poll(url, { use: [shared, broken], isDone: () => false })).rejects.toThrow(new Error('feature broke'));
    await expect(poll(url, { use: [shared, broken], isDone: () => false })).rejects.toThrow(new Error('feature broke'));
    expect(server.requests).toHaveLength(0);
  });
});
