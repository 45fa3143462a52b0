import { afterEach, describe, expect, it } from 'vitest';
import { isRetryableError, ParseError, poll, PollGaveUpError, type PollEvent } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// A 2xx whose body breaks off on the way is the network's failure (retried), not a body that
// does not parse (a ParseError ends the poll): found by the mutation run of src/poll.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('poll: a body that breaks off', () => {
  it('is retried as a network failure, and the next answer is used', async () => {
    server = await startServer(
      scripted([
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"status":"pe');
          setTimeout(() => res.socket?.destroy(), 10);
        },
        json(200, { status: 'done' }),
      ]),
    );
    const events: PollEvent[] = [];
    const { env } = recordingEnv({ random: 0.5 });
    const job = await poll<{ status: string }>(server.url, { env, isDone: (j) => j.status === 'done', onEvent: (e) => events.push(e) });
    expect(job).toEqual({ status: 'done' });
    expect(server.requests).toHaveLength(2);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ type: 'retry', attempt: 1, reason: 'network' });
  });

  it('given up on, it is the network error itself that the PollGaveUpError carries, not a ParseError', async () => {
    server = await startServer(
      scripted([
        (res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"status":"pe');
          setTimeout(() => res.socket?.destroy(), 10);
        },
      ]),
    );
    const error = (await poll(server.url, { env: recordingEnv().env, retries: 0 }).catch((e: unknown) => e)) as PollGaveUpError;
    expect(error).toBeInstanceOf(PollGaveUpError);
    expect(error.cause).not.toBeInstanceOf(ParseError);
    expect(isRetryableError(error.cause)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});
