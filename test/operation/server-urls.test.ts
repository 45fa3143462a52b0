import { afterEach, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from './helpers/instant-env.js';
import { recordingFetch } from './helpers/recording-fetch.js';
import { empty, json, lines, routes } from './helpers/routes.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', body: '{}' } as const;

/** URLs a server may name that fetch cannot request, each with a query that must not be echoed. */
const LOCAL = [
  ['file:///etc/passwd?token=secret', 'file:'],
  ['ftp://files.example/job?token=secret', 'ftp:'],
  ['javascript:alert(1)//?token=secret', 'javascript:'],
  ['about:blank?token=secret', 'about:'],
  ['blob:https://api.example/0f1e?token=secret', 'blob:'],
  ['data:application/json,{"status":"Succeeded"}?token=secret', 'data:'],
] as const;

describe('a URL a server names is requested only if it is http or https', () => {
  it.each(LOCAL)('Operation-Location: %s rejects at once with a TypeError naming the header and the scheme', async (url, scheme) => {
    server = await routes({ 'POST /jobs': [empty(202, { 'operation-location': url, location: '/fine' })] });
    const { fetch, calls } = recordingFetch();
    const { env, delays } = instantEnv();
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, fetch } }).catch((e: unknown) => e);
    expect(error).toEqual(new TypeError(`Expected the Operation-Location header to name an http or https URL, got a ${scheme} URL`));
    expect((error as Error).message).not.toContain('secret');
    // One fetch, no wait: not a network failure to retry for minutes.
    expect(calls.map((c) => c.url)).toEqual([`${server.url}/jobs`]);
    expect(delays).toEqual([]);
  });

  it("Azure-AsyncOperation, a 202's Location and what operationUrl returns are checked the same way", async () => {
    server = await routes({
      'POST /a': [empty(202, { 'azure-asyncoperation': 'ftp://x/ops' })],
      'POST /b': [empty(202, { location: 'file:///tmp/op' })],
      'POST /c': [json(200, { name: 'operations/1' })],
    });
    const { env } = instantEnv();
    await expect(pollOperation(`${server.url}/a`, { ...post, operation: { env } })).rejects.toThrow(
      new TypeError('Expected the Azure-AsyncOperation header to name an http or https URL, got a ftp: URL'),
    );
    await expect(pollOperation(`${server.url}/b`, { ...post, operation: { env } })).rejects.toThrow(
      new TypeError("Expected the 202's Location header to name an http or https URL, got a file: URL"),
    );
    await expect(pollOperation(`${server.url}/c`, { ...post, operation: { env, operationUrl: () => 'data:,{}' } })).rejects.toThrow(
      new TypeError('Expected `operationUrl` to name an http or https URL, got a data: URL'),
    );
    expect(lines(server)).toEqual(['POST /a', 'POST /b', 'POST /c']);
  });

  it.each(LOCAL)('a result at %s rejects once the operation succeeded, after no request for it', async (url, scheme) => {
    server = await routes({ 'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })], 'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: url })] });
    const { fetch, calls } = recordingFetch();
    const { env } = instantEnv();
    const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env, fetch } }).catch((e: unknown) => e);
    expect(error).toEqual(new TypeError(`Expected the final status's resourceLocation to name an http or https URL, got a ${scheme} URL`));
    expect(calls.map((c) => c.url)).toEqual([`${server.url}/jobs`, `${server.url}/ops/1`]);
  });

  it("the final status's Location and the start's Location are checked too", async () => {
    server = await routes({
      'POST /a': [empty(202, { location: '/a/m' })],
      'GET /a/m': [empty(200, { location: 'file:///a' })],
      'POST /b': [empty(202, { 'operation-location': '/b/m', location: 'javascript:void(0)' })],
      'GET /b/m': [json(200, { status: 'Succeeded' })],
    });
    const { env } = instantEnv();
    await expect(pollOperation(`${server.url}/a`, { ...post, operation: { env } })).rejects.toThrow(
      new TypeError("Expected the final status's Location header to name an http or https URL, got a file: URL"),
    );
    await expect(pollOperation(`${server.url}/b`, { ...post, operation: { env } })).rejects.toThrow(
      new TypeError("Expected the start answer's Location header to name an http or https URL, got a javascript: URL"),
    );
    expect(lines(server)).toEqual(['POST /a', 'GET /a/m', 'POST /b', 'GET /b/m']);
  });

  it('http and https of any origin pass the check (which origin gets credentials is another rule)', async () => {
    server = await routes({ 'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })], 'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/r' })], 'GET /r': [json(200, 1)] });
    const { env } = instantEnv();
    expect(await pollOperation(`${server.url}/jobs`, { ...post, operation: { env } })).toBe(1);
  });
});
