// @vitest-environment jsdom
import { act } from '@testing-library/react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/react/index.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { answer, until, type Job } from './helpers.js';

let server: TestServer | undefined;
let root: Root | undefined;
afterEach(async () => {
  act(() => root?.unmount());
  root = undefined;
  await server?.close();
  server = undefined;
});

describe('server-rendered, then hydrated', () => {
  it('hydrates without a mismatch and then sends one request per hook', async () => {
    server = await startServer((req, res) => (req.url === '/job' ? answer(200, { status: 'done' })(res) : answer(200, { rows: 2 })(res)));
    const url = server.url;
    function Page() {
      const job = usePoll<Job>(`${url}/job`, { isDone: (j) => j.status === 'done' });
      const report = useFetchWithRetry<{ rows: number }>(`${url}/report`);
      return <p>{`${job.status} ${job.data?.status ?? '-'} ${report.loading ? 'loading' : report.data?.rows}`}</p>;
    }
    // From the server render on: React 18 warns there about a useLayoutEffect when a DOM exists.
    const consoleError = vi.spyOn(console, 'error');
    const html = renderToString(<Page />);
    expect(html).toBe('<p>idle - loading</p>');
    const container = document.createElement('div');
    container.innerHTML = html;
    const recoverable: unknown[] = [];
    await act(async () => {
      root = hydrateRoot(container, <Page />, { onRecoverableError: (error) => recoverable.push(error) });
    });
    await until(() => container.textContent === 'done done 2');
    expect(recoverable).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    expect(server.requests.map((r) => r.path).sort()).toEqual(['/job', '/report']);
    consoleError.mockRestore();
  });
});
