import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { ParseError } from '../../src/index.js';
import { createFetchState } from '../../src/observe/index.js';
import type { TestServer } from '../helpers/server.js';
import { bombServer, countingFetch, PAST_BOUND, READ_AHEAD } from '../http/bomb.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createFetchState reads at most 16 MiB, decoded', () => {
  it('a brotli bomb (17 MiB of JSON in a few dozen bytes, an honest Content-Length) is an error state with a ParseError caused by a RangeError', async () => {
    server = await bombServer('br', PAST_BOUND);
    const counted = countingFetch();
    const state = createFetchState(`${server.url}/report`, { fetch: counted.fetch });
    // Waited for as long as the test may run: a loaded machine takes seconds to decode 16 MiB.
    const ended = new Promise<void>((resolve) => state.subscribe(() => state.getSnapshot().status !== 'loading' && resolve()));
    state.start();
    await ended;
    const snapshot = state.getSnapshot();
    expect(snapshot).toMatchObject({ status: 'error', data: undefined, attempt: 1 });
    expect(snapshot.error).toBeInstanceOf(ParseError);
    expect((snapshot.error as ParseError).cause).toEqual(new RangeError(`The body is larger than ${MAX_BODY_BYTES} bytes`));
    // Pulled: the bound and the chunks decoded ahead of the reader, not the 17 MiB.
    expect(counted.read()).toBeGreaterThan(MAX_BODY_BYTES);
    expect(counted.read()).toBeLessThan(MAX_BODY_BYTES + READ_AHEAD);
    expect(server.requests).toHaveLength(1);
  });
});
