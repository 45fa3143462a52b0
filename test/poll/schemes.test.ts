import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry, poll } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// A URL whose scheme fetch cannot request fails inside fetch as a network
// error would (undici: "fetch failed", cause "unknown scheme"), and was
// retried: poll('ftp://…') made 9 attempts, fetchWithRetry 4 over 1.8 s. It
// can never succeed, so it is refused at once as the programming error it
// is: a TypeError naming `input` and the scheme, nothing sent.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The real fetch, counting its calls. */
function countingFetch(): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: ((...args: Parameters<typeof fetch>) => {
      calls += 1;
      return fetch(...args);
    }) as typeof fetch,
    calls: () => calls,
  };
}

const REFUSED = [
  ['ftp:', 'ftp://127.0.0.1/file.json'],
  ['file:', 'file:///etc/passwd'],
  ['javascript:', 'javascript:alert(1)'],
  ['ws:', 'ws://127.0.0.1/socket'],
  ['wss:', 'wss://127.0.0.1/socket'],
] as const;

const message = (scheme: string, url: string): string =>
  `Expected \`input\` to be a URL with a scheme fetch can request (http:, https:, data:, blob:), got ${scheme} in ${url}`;

describe.each([
  ['poll', (input: string | URL | Request, fetchImpl: typeof fetch) => poll(input, { fetch: fetchImpl, env: recordingEnv().env })],
  ['fetchWithRetry', (input: string | URL | Request, fetchImpl: typeof fetch) => fetchWithRetry(input, { retry: { fetch: fetchImpl, env: recordingEnv().env } })],
  ['pollOperation', (input: string | URL | Request, fetchImpl: typeof fetch) => pollOperation(input, { operation: { fetch: fetchImpl, env: recordingEnv().env } })],
])('%s refuses a scheme fetch cannot request, sending nothing', (_name, run) => {
  it.each(REFUSED)('%s as a string, a URL and a Request: a TypeError at once, fetch never called', async (scheme, url) => {
    const counted = countingFetch();
    for (const input of [url, new URL(url), new Request(url)]) {
      const error = await run(input, counted.fetch).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(message(scheme, url));
    }
    expect(counted.calls()).toBe(0);
  });

  it('names the scheme without the secrets of the URL', async () => {
    const counted = countingFetch();
    const error = (await run('ftp://user:hunter2@127.0.0.1/f?token=SECRET#frag', counted.fetch).catch((e: unknown) => e)) as TypeError;
    expect(error.message).toBe(message('ftp:', 'ftp://***@127.0.0.1/f?token=***#***'));
    expect(counted.calls()).toBe(0);
  });

  it('a URL with credentials, a user name or a password alone, is refused: fetch would print it whole', async () => {
    const counted = countingFetch();
    for (const [url, shown] of [
      ['http://TOKEN@127.0.0.1/', 'http://***@127.0.0.1/'],
      ['http://:hunter2@127.0.0.1/', 'http://***@127.0.0.1/'],
    ]) {
      const error = (await run(url!, counted.fetch).catch((e: unknown) => e)) as TypeError;
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe(`Expected \`input\` to be a URL without credentials, which fetch refuses (send an Authorization header instead), got ${shown}`);
    }
    expect(counted.calls()).toBe(0);
  });

  it('an object with a url but no clone is no Request', async () => {
    const counted = countingFetch();
    const error = (await run({ url: 'http://127.0.0.1/' } as unknown as Request, counted.fetch).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Expected `input` to be a valid URL string, URL or Request, got [object Object]');
    expect(counted.calls()).toBe(0);
  });

  it('an unparsable string is refused as before, its query redacted', async () => {
    const counted = countingFetch();
    const error = (await run('api.example.com/jobs?api_key=SECRET', counted.fetch).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Expected `input` to be a valid URL string, URL or Request, got api.example.com/jobs?api_key=***');
    expect(counted.calls()).toBe(0);
  });
});

describe('the schemes fetch can request still go out', () => {
  it('http: to a real server, and data: and blob: read by fetch itself', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const counted = countingFetch();
    const env = recordingEnv().env;
    const isDone = (job: { status: string }): boolean => job.status === 'done';
    expect(await poll(server.url, { isDone, fetch: counted.fetch, env })).toEqual({ status: 'done' });
    expect(server.requests).toHaveLength(1);
    expect(await poll('data:application/json,{"status":"done"}', { isDone, fetch: counted.fetch, env })).toEqual({ status: 'done' });
    const blob = URL.createObjectURL(new Blob(['{"status":"done"}'], { type: 'application/json' }));
    try {
      expect(await (await fetchWithRetry(blob, { retry: { fetch: counted.fetch, env } })).json()).toEqual({ status: 'done' });
    } finally {
      URL.revokeObjectURL(blob);
    }
    expect(counted.calls()).toBe(3);
  });
});
