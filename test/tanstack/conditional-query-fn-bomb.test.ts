import { QueryClient } from '@tanstack/query-core';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { ParseError } from '../../src/index.js';
import { conditionalQueryFn } from '../../src/tanstack/index.js';
import type { TestServer } from '../helpers/server.js';
import { bombServer, countingFetch, PAST_BOUND, READ_AHEAD } from '../http/bomb.js';

let server: TestServer | undefined;
const client = new QueryClient();
afterEach(async () => {
  client.clear();
  await server?.close();
  server = undefined;
});

describe('conditionalQueryFn reads at most 16 MiB, decoded', () => {
  it('a deflate bomb (17 MiB of JSON in about 17 KiB, an honest Content-Length) fails the query with a ParseError caused by a RangeError', async () => {
    server = await bombServer('deflate', PAST_BOUND);
    const counted = countingFetch();
    const error = await client
      .fetchQuery({ queryKey: ['job', 1], queryFn: conditionalQueryFn(`${server.url}/job`, { fetch: counted.fetch }), retry: false })
      .then(
        (data) => expect.fail(`resolved with ${JSON.stringify(data)}`),
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(ParseError);
    expect((error as ParseError).cause).toEqual(new RangeError(`The body is larger than ${MAX_BODY_BYTES} bytes`));
    // Pulled: the bound and the chunks decoded ahead of the reader, not the 17 MiB.
    expect(counted.read()).toBeGreaterThan(MAX_BODY_BYTES);
    expect(counted.read()).toBeLessThan(MAX_BODY_BYTES + READ_AHEAD);
    expect(server.requests).toHaveLength(1);
  });
});
