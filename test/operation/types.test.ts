import { describe, expectTypeOf, it } from 'vitest';
import type { PollEvent } from '../../src/index.js';
import type { PollFeature } from '../../src/kit/index.js';
import { isOperationFailedError, pollOperation, preferWait, type OperationAnswer, type OperationFailedError, type OperationOptions, type PollOperationInit } from '../../src/operation/index.js';

describe('the types of pollOperation', () => {
  it('resolves with TResult; isDone, isFailed and onUpdate see TStatus', () => {
    type Status = { state: 'running' | 'done' };
    const done = (): Promise<{ url: string }> =>
      pollOperation<{ url: string }, Status>('https://api.example/exports', {
        method: 'POST',
        operation: {
          isDone: (status, answer) => {
            expectTypeOf(status).toEqualTypeOf<Status>();
            expectTypeOf(answer).toEqualTypeOf<OperationAnswer<Status>>();
            return status.state === 'done';
          },
          isFailed: async (status) => status.state !== 'done',
          trustedOrigins: ['https://ops.example'],
          onUpdate: (status) => expectTypeOf(status).toEqualTypeOf<Status>(),
          operationUrl: (start) => (start.headers.get('x-monitor') ?? undefined),
        },
      });
    expectTypeOf(done).returns.toEqualTypeOf<Promise<{ url: string }>>();
    expectTypeOf<PollOperationInit['operation']>().toEqualTypeOf<OperationOptions | undefined>();
  });

  it('preferWait: ms on the options, a feature for poll; request events may say held', () => {
    expectTypeOf<OperationOptions['preferWait']>().toEqualTypeOf<number | undefined>();
    expectTypeOf(preferWait).toEqualTypeOf<(ms: number) => PollFeature>();
    expectTypeOf<Extract<PollEvent, { type: 'request' }>['held']>().toEqualTypeOf<number | undefined>();
  });

  it('isOperationFailedError narrows to the error with its state and final body', () => {
    const error: unknown = undefined;
    if (isOperationFailedError(error)) {
      expectTypeOf(error).toEqualTypeOf<OperationFailedError>();
      expectTypeOf(error.status).toEqualTypeOf<'failed' | 'canceled'>();
      expectTypeOf(error.operation).toBeUnknown();
    }
  });
});
