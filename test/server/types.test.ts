import { describe, expectTypeOf, it } from 'vitest';
import { jsonWithETag, pollingCors, retryLater } from '../../src/server/index.js';
import { toNodeHandler } from '../../src/server/node.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

describe('pollite/server types', () => {
  it('keeps a handler’s extra arguments (workers’ env, Next.js context) through pollingCors', () => {
    const wrapped = pollingCors({ origin: '*' })((_request: Request, env: { DB: string }, ctx: { waitUntil(p: Promise<unknown>): void }) =>
      new Response(env.DB + String(typeof ctx)),
    );
    expectTypeOf(wrapped).parameters.toEqualTypeOf<[Request, { DB: string }, { waitUntil(p: Promise<unknown>): void }]>();
    expectTypeOf(wrapped).returns.toEqualTypeOf<Promise<Response>>();
  });

  it('types the helpers’ inputs', () => {
    expectTypeOf(jsonWithETag).returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf(retryLater).parameter(0).toEqualTypeOf<429 | 503>();
    expectTypeOf(retryLater).parameter(1).toEqualTypeOf<number | Date>();
  });

  it("accepts node:http's request and response as they are", () => {
    type Listener = ReturnType<typeof toNodeHandler>;
    expectTypeOf<IncomingMessage>().toExtend<Parameters<Listener>[0]>();
    expectTypeOf<ServerResponse>().toExtend<Parameters<Listener>[1]>();
  });
});
