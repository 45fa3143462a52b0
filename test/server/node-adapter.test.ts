import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../src/server/node.js';
import { serveWeb } from './serve.js';
import { thrown } from './thrown.js';

describe('toNodeHandler', () => {
  let server: Awaited<ReturnType<typeof serveWeb>> | undefined;
  afterEach(() => server?.close());

  it('hands the handler the method, URL, headers and body, and sends back status, headers and body', async () => {
    server = await serveWeb(async (request) => {
      const body = await request.text();
      return new Response(`echo:${body}`, {
        status: 201,
        statusText: 'Made',
        headers: [
          ['x-method', request.method],
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ],
      });
    });
    const response = await fetch(`${server.url}/jobs?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-trace': 'abc' },
      body: 'hello',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-method')).toBe('POST');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('echo:hello');
    const [seen] = server.exchanges;
    expect(seen).toMatchObject({ method: 'POST', url: `${server.url}/jobs?x=1`, body: 'hello' });
    expect(seen!.headers['x-trace']).toBe('abc');
  });

  /** Sends one raw request line and headers; resolves with the status the adapter answered. */
  const raw = (url: string, options: { method?: string; path: string; headers?: Record<string, string> }): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });

  it('a target starting with // stays a path and never names a host; a proxy-form target keeps only its path', async () => {
    server = await serveWeb((request) => new Response(request.url));
    expect(await raw(server.url, { path: '//evil.example/x?y=1' })).toBe(200);
    expect(await raw(server.url, { path: 'http://evil.example/p?q=2' })).toBe(200);
    expect(server.exchanges.map((e) => e.url)).toEqual([`${server.url}//evil.example/x?y=1`, `${server.url}/p?q=2`]);
  });

  it('a Host no URL can be made of gets 400 and a method fetch cannot carry 501, without bothering the handler or onError', async () => {
    const errors: unknown[] = [];
    server = await serveWeb(() => new Response('ok'), { onError: (error) => errors.push(error) });
    expect(await raw(server.url, { path: '/x', headers: { host: 'a b' } })).toBe(400);
    expect(await raw(server.url, { method: 'TRACE', path: '/x' })).toBe(501);
    expect(await raw(server.url, { path: '/x' })).toBe(200);
    expect(server.exchanges).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('uses the configured origin instead of the Host header, and the standard reason phrase', async () => {
    server = await serveWeb((request) => new Response(request.url), { origin: 'https://api.example.com' });
    const response = await fetch(`${server.url}/a/b?c`);
    expect(response.statusText).toBe('OK');
    expect(await response.text()).toBe('https://api.example.com/a/b?c');
  });

  it('streams a body larger than the socket buffer', async () => {
    const big = 'x'.repeat(1024 * 1024);
    server = await serveWeb(() => new Response(big));
    expect((await (await fetch(server.url)).text()).length).toBe(big.length);
  });

  it('answers HEAD without a body', async () => {
    server = await serveWeb(() => new Response('body', { headers: { 'x-a': '1' } }));
    const response = await fetch(server.url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-a')).toBe('1');
    expect(await response.text()).toBe('');
  });

  it('answers 500 and reports the error when the handler throws', async () => {
    const errors: unknown[] = [];
    const boom = new Error('boom');
    server = await serveWeb(
      () => {
        throw boom;
      },
      { onError: (error) => errors.push(error) },
    );
    const response = await fetch(server.url);
    expect(response.status).toBe(500);
    expect(errors).toEqual([boom]);
  });

  it('aborts request.signal when the client goes away', async () => {
    let started!: (signal: AbortSignal) => void;
    const handlerStarted = new Promise<AbortSignal>((resolve) => (started = resolve));
    server = await serveWeb(
      (request) =>
        new Promise<Response>((_resolve, reject) => {
          started(request.signal);
          request.signal.addEventListener('abort', () => reject(request.signal.reason));
        }),
    );
    const req = httpRequest(server.url);
    req.on('error', () => undefined);
    req.end();
    const signal = await handlerStarted;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve));
    req.destroy();
    await aborted;
    expect((signal.reason as DOMException).name).toBe('AbortError');
  });

  it.each([
    [() => toNodeHandler('x' as never), 'Expected `handler` to be a function'],
    [() => toNodeHandler(() => new Response(), { origin: 'api.example.com' }), "Expected `origin` to be an absolute URL such as 'https://api.example.com'"],
    [() => toNodeHandler(() => new Response(), { onError: 1 as never }), 'Expected `onError` to be a function'],
    ...[-1, 1.5, Number.NaN, Infinity, '1024', null].map((maxBodyBytes): [() => unknown, string] => [
      () => toNodeHandler(() => new Response(), { maxBodyBytes: maxBodyBytes as number }),
      'Expected `maxBodyBytes` to be a non-negative integer',
    ]),
  ])('refuses bad arguments with a TypeError (%#)', async (call, message) => {
    const error = await thrown(call);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });
});
