import { describe, expectTypeOf, it } from 'vitest';
import { HttpError, isHttpError, isTimeoutError, type TimeoutErrorLike } from '../../src/index.js';

// Issue 35, item 3: isTimeoutError narrows, as isHttpError does, to what every TimeoutError has
// (pollite's and AbortSignal.timeout()'s DOMException, ky's and got's Error): an Error by that name.

describe('isTimeoutError is a type guard', () => {
  it('narrows unknown to an Error named TimeoutError', () => {
    expectTypeOf(isTimeoutError).guards.toEqualTypeOf<TimeoutErrorLike>();
    expectTypeOf<TimeoutErrorLike>().toMatchTypeOf<Error & { name: 'TimeoutError' }>();
    const caught: unknown = new DOMException('late', 'TimeoutError');
    if (isTimeoutError(caught)) {
      expectTypeOf(caught.name).toEqualTypeOf<'TimeoutError'>();
      expectTypeOf(caught.message).toEqualTypeOf<string>();
      expectTypeOf(caught.cause).toEqualTypeOf<unknown>();
    }
  });

  it('a DOMException, the platform timeout error, is what it narrows to', () => {
    expectTypeOf<DOMException & { name: 'TimeoutError' }>().toMatchTypeOf<TimeoutErrorLike>();
  });

  it('as isHttpError does', () => {
    expectTypeOf(isHttpError).guards.toEqualTypeOf<HttpError>();
  });

  it('leaves other errors in the other branch', () => {
    const caught = new HttpError(new Response(null, { status: 404 })) as HttpError | DOMException;
    if (!isTimeoutError(caught)) expectTypeOf(caught).toEqualTypeOf<HttpError | DOMException>();
  });
});
