// Server rendering: the default (node) environment, where neither `window`
// nor `document` exists, so touching either would throw.
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/react/index.js';
import { scripted, startServer, type TestServer } from '../helpers/server.js';
import { answer, type Job } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('server rendering', () => {
  it('runs without a DOM', () => {
    expect(typeof window).toBe('undefined');
    expect(typeof document).toBe('undefined');
  });

  it("usePoll renders status 'idle' and sends nothing", async () => {
    server = await startServer(scripted([answer(200, { status: 'done' })]));
    const url = server.url;
    function JobStatus() {
      const { status, data, attempt, limit, nextAttemptAt, secondsLeft, paused } = usePoll<Job>(url, { isDone: () => true });
      return <p>{`${status} ${data?.status ?? '-'} ${attempt} of ${limit} ${nextAttemptAt ?? '-'} ${secondsLeft ?? '-'} ${paused}`}</p>;
    }
    expect(renderToString(<JobStatus />)).toBe('<p>idle - 0 of 9 - - false</p>');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(0);
  });

  it('useFetchWithRetry renders loading (attempt 1 of 4) and sends nothing', async () => {
    server = await startServer(scripted([answer(200, { rows: 1 })]));
    const url = server.url;
    function Report() {
      const { status, data, attempt, limit } = useFetchWithRetry(url);
      return <p>{`${status} ${String(data)} attempt ${attempt} of ${limit}`}</p>;
    }
    expect(renderToString(<Report />)).toBe('<p>loading undefined attempt 1 of 4</p>');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(0);
  });
});
