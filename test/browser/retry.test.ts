import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { requireOrSkip } from '../helpers/tools.js';
import { launchChromium } from './helpers/chromium.js';
import { polliteBundle, servePollitePage } from './helpers/pollite-page.js';

// fetchWithRetry in real Chromium: its own network error ("Failed to fetch")
// is retried, and a cross-origin Retry-After is only honoured when the
// server exposes it (it is not a CORS-safelisted response header).

interface PageResult {
  status: number;
  delays: number[];
  errors: string[];
}
/** How the API answers its n-th call (1-based) of a test; `broken` sends a response no browser accepts. */
type Answer = { status: number; headers?: Record<string, string>; broken?: true };

let pageServer: TestServer;
let apiServer: TestServer;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
let answer: (call: number) => Answer = () => ({ status: 200 });
let calls = 0;

function api(req: IncomingMessage, res: ServerResponse): void {
  const { status, headers, broken } = answer(++calls);
  if (broken) {
    // Two different lengths: a network error the browser cannot retry on its own, as it
    // silently does when a reused connection merely closes.
    req.socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello');
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain', 'cache-control': 'no-store', ...headers });
  res.end(String(status));
}

const CORS = { 'access-control-allow-origin': '*' };

describe.skipIf(!requireOrSkip('chromium', 'the browser tests'))('fetchWithRetry in Chromium', () => {
  beforeAll(async () => {
    const code = await polliteBundle();
    pageServer = await startServer((req, res, seen) => {
      if (servePollitePage(seen.path, res, code)) return;
      if (seen.path === '/favicon.ico') {
        res.writeHead(404);
        res.end();
      } else {
        api(req, res);
      }
    });
    apiServer = await startServer((req, res) => api(req, res));
    chromium = await launchChromium();
  });

  afterAll(async () => {
    await chromium?.close();
    await pageServer?.close();
    await apiServer?.close();
  });

  /** Calls fetchWithRetry(url) in a fresh page, recording its waits and retried errors. */
  const runInPage = async (url: string, script: (call: number) => Answer): Promise<PageResult> => {
    calls = 0;
    answer = script;
    const page = await chromium!.context.newPage();
    try {
      await page.goto(`${pageServer.url}/`);
      await page.waitForFunction(() => 'pollite' in window);
      return await page.evaluate(async (target) => {
        const { fetchWithRetry, constant } = (window as unknown as { pollite: typeof import('../../src/index.js') }).pollite;
        const delays: number[] = [];
        const errors: string[] = [];
        const env = {
          random: () => 0.5,
          setTimeout: (callback: () => void, ms: number) => {
            delays.push(ms);
            return setTimeout(callback, 0);
          },
        };
        const response = await fetchWithRetry(target, {
          cache: 'no-store',
          retry: { env, backoff: constant(77), onRetry: ({ error }) => errors.push(String((error as Error).message)) },
        });
        return { status: response.status, delays, errors };
      }, url);
    } finally {
      await page.close();
    }
  };

  it("retries Chromium's own network error, 'Failed to fetch'", async () => {
    const result = await runInPage(`${pageServer.url}/flaky`, (call) => (call === 1 ? { status: 0, broken: true } : { status: 200 }));
    expect(result).toEqual({ status: 200, delays: [77], errors: ['Failed to fetch'] });
    expect(pageServer.requests.filter((r) => r.path === '/flaky')).toHaveLength(2);
  });

  it('falls back to backoff when a cross-origin server does not expose Retry-After', async () => {
    const result = await runInPage(`${apiServer.url}/hidden`, (call) =>
      call === 1 ? { status: 503, headers: { 'retry-after': '3', ...CORS } } : { status: 200, headers: CORS },
    );
    expect(result).toEqual({ status: 200, delays: [77], errors: [`HTTP 503 Service Unavailable from ${apiServer.url}/hidden`] });
  });

  it('honours a cross-origin Retry-After the server exposes', async () => {
    const exposed = { ...CORS, 'access-control-expose-headers': 'Retry-After' };
    const result = await runInPage(`${apiServer.url}/exposed`, (call) =>
      call === 1 ? { status: 503, headers: { 'retry-after': '3', ...exposed } } : { status: 200, headers: exposed },
    );
    expect(result).toEqual({ status: 200, delays: [3300], errors: [`HTTP 503 Service Unavailable from ${apiServer.url}/exposed`] });
  });

  it('treats a cross-origin answer without CORS headers as a network error and retries it', async () => {
    const result = await runInPage(`${apiServer.url}/opaque`, (call) => (call === 1 ? { status: 503 } : { status: 200, headers: CORS }));
    expect(result).toEqual({ status: 200, delays: [77], errors: ['Failed to fetch'] });
    expect(apiServer.requests.filter((r) => r.path === '/opaque')).toHaveLength(2);
  });
});
