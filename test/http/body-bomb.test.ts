import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { ParseError, poll } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import type { TestServer } from '../helpers/server.js';
import { instantEnv } from '../operation/helpers/instant-env.js';
import { empty, json, lines, routes } from '../operation/helpers/routes.js';
import { bomb, bombServer, CODINGS, countingFetch, PAST_BOUND, READ_AHEAD } from './bomb.js';

// A MiB past the bound, valid JSON (spaces, then {}): a reader that trusts the headers resolves with {}.
const DECODED = PAST_BOUND;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `promise`'s rejection, or a failure naming what it resolved with. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => expect.fail(`resolved with ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );

describe('the 16 MiB bound of the default parser counts decoded bytes: a compression bomb', () => {
  it.each(CODINGS)('%s: poll rejects with a ParseError caused by a RangeError, having pulled 16 MiB and a chunk, not 17 MiB', async (coding) => {
    server = await bombServer(coding, DECODED);
    // An honest Content-Length, far within the bound: the wire carries a few KiB at most.
    expect(bomb(coding, DECODED).length).toBeLessThan(64 * 1024);
    const counted = countingFetch();
    const error = await rejection(poll(`${server.url}/job`, { fetch: counted.fetch, isDone: () => true }));
    expect(error).toBeInstanceOf(ParseError);
    expect((error as ParseError).cause).toEqual(new RangeError(`The body is larger than ${MAX_BODY_BYTES} bytes`));
    expect(counted.read()).toBeGreaterThan(MAX_BODY_BYTES);
    expect(counted.read()).toBeLessThan(MAX_BODY_BYTES + READ_AHEAD);
    expect(server.requests).toHaveLength(1);
  });

  it("pollOperation: a bomb as the operation's result (fetched from resourceLocation) is a ParseError caused by a RangeError", async () => {
    const wire = bomb('br', DECODED);
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [json(200, { status: 'Succeeded', resourceLocation: '/result' })],
      'GET /result': [
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br', 'content-length': wire.length });
          res.end(wire);
        },
      ],
    });
    const { env } = instantEnv();
    const error = await rejection(pollOperation(`${server.url}/jobs`, { method: 'POST', body: '{}', operation: { env, interval: 10 } }));
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/1', 'GET /result']);
    expect(error).toBeInstanceOf(ParseError);
    expect(error).toMatchObject({ url: `${server.url}/result`, status: 200 });
    expect((error as ParseError).cause).toEqual(new RangeError(`The body is larger than ${MAX_BODY_BYTES} bytes`));
  });

  it("pollOperation: a bomb as the monitor's status is a ParseError caused by a RangeError, and not polled again", async () => {
    const wire = bomb('gzip', DECODED);
    server = await routes({
      'POST /jobs': [empty(202, { 'operation-location': '/ops/1' })],
      'GET /ops/1': [
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': wire.length });
          res.end(wire);
        },
      ],
    });
    const { env } = instantEnv();
    const error = await rejection(pollOperation(`${server.url}/jobs`, { method: 'POST', body: '{}', operation: { env, interval: 10 } }));
    expect(lines(server)).toEqual(['POST /jobs', 'GET /ops/1']);
    expect(error).toBeInstanceOf(ParseError);
    expect((error as ParseError).cause).toEqual(new RangeError(`The body is larger than ${MAX_BODY_BYTES} bytes`));
  });
});
