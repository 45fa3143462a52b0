import { afterEach, describe, expect, it } from 'vitest';
import { OperationFailedError, pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from '../operation/helpers/instant-env.js';
import { empty, json, routes } from '../operation/helpers/routes.js';

// Issue 35: OperationFailedError's message says what the server said (the body's error code and
// message), as text a server wrote is quoted: no control characters, URLs redacted, clipped.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } as const;

/** The error pollOperation rejects with when the monitor at `monitor` finally answers `final`. */
async function failedWith(monitor: string, final: unknown): Promise<OperationFailedError> {
  server = await routes({ 'POST /jobs': [empty(202, { 'operation-location': monitor })], [`GET ${monitor}`]: [json(200, final)] });
  const error = await pollOperation(`${server.url}/jobs`, { ...post, operation: { env: instantEnv().env } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OperationFailedError);
  return error as OperationFailedError;
}

// eslint-disable-next-line no-control-regex -- what must not be there
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("OperationFailedError: the message carries the server's error code", () => {
  it('Azure: error.code, then error.message', async () => {
    const error = await failedWith('/ops/1', { status: 'Failed', error: { code: 'BadArgument', message: 'The disk name is invalid' } });
    expect(error.message).toBe(`The operation at ${server!.url}/ops/1 failed: BadArgument: The disk name is invalid`);
  });

  it('Google: the numeric code with its status, as gRPC prints them, then the message', async () => {
    const error = await failedWith('/v1/operations/7', { name: 'operations/7', done: true, error: { code: 3, status: 'INVALID_ARGUMENT', message: 'zone is required' } });
    expect(error.message).toBe(`The operation at ${server!.url}/v1/operations/7 failed: 3 INVALID_ARGUMENT: zone is required`);
  });

  it('a code without a message, and a canceled operation with its code', async () => {
    expect((await failedWith('/ops/2', { done: true, error: { code: 5 } })).message).toBe(`The operation at ${server!.url}/ops/2 failed: code 5`);
    await server!.close();
    const canceled = await failedWith('/ops/3', { status: 'Canceled', error: { code: 'OperationCanceled', message: 'by the user' } });
    expect(canceled.message).toBe(`The operation at ${server!.url}/ops/3 was canceled: OperationCanceled: by the user`);
  });

  it("the server's words without control characters, a URL in them redacted, clipped to 200 characters; the monitor's URL redacted", async () => {
    const message = `Copy from https://acct.blob.example/c/b?sv=2024&sig=S3CRET failed:\n\x1b[2J\u202eevil\x07 ${'x'.repeat(1000)}`;
    const error = await failedWith('/ops/4?token=T0KEN', { status: 'Failed', error: { code: 'Copy\x1b]0;title\x07Failed', message } });
    const prefix = `The operation at ${server!.url}/ops/4?token=*** failed: `;
    expect(error.message.startsWith(prefix)).toBe(true);
    const detail = error.message.slice(prefix.length);
    expect(detail).toMatch(/^Copy ]0;title Failed: Copy from https:\/\/acct\.blob\.example\/c\/b\?sv=\*\*\*&sig=\*\*\* failed: \[2J evil x+…$/);
    expect(Array.from(detail)).toHaveLength(200);
    expect(error.message).not.toMatch(CONTROLS);
    expect(error.message).not.toContain('S3CRET');
    expect(error.message).not.toContain('T0KEN');
    // Whole where code reads them.
    expect(error.url).toBe(`${server!.url}/ops/4?token=T0KEN`);
    expect((error.operation as { error: { message: string } }).error.message).toBe(message);
  });

  it('a detail given to the constructor, when the body says nothing, is quoted by the same rule', () => {
    const error = new OperationFailedError('failed', { status: 'Failed' }, 'https://api.example/ops/1', 'stack\nCREATE_FAILED\x1b[0m');
    expect(error.message).toBe('The operation at https://api.example/ops/1 failed: stack CREATE_FAILED [0m');
  });
});
