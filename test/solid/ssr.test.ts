// In Node, solid-js resolves to its server build: effects never run, as in a server render.
import { createRoot } from 'solid-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchWithRetry, createPoll } from '../../src/solid/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { settle } from '../observe/helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('pollite/solid on the server', () => {
  it('poll idle, fetch loading, neither paced, nothing sent', async () => {
    server = await startServer(scripted([(res) => sendJson(res, 200, { status: 'done' })]));
    const url = server.url;
    const shown = createRoot((dispose) => {
      const poll = createPoll(() => url, { retries: 2 });
      const report = createFetchWithRetry(url);
      const text = `${poll.status} ${poll.attempt} of ${poll.limit} ${poll.paused} ${poll.paced} ${report.status} ${report.loading} ${report.paced} ${report.secondsLeft}`;
      dispose();
      return text;
    });
    expect(shown).toBe('idle 0 of 3 false false loading true false undefined');
    await settle();
    expect(server.requests).toHaveLength(0);
  });
});
