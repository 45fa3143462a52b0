import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PollOptions } from '../../src/index.js';
import {
  useFetchWithRetry,
  usePoll,
  type FetchWithRetryState,
  type PollState,
  type UseFetchWithRetryOptions,
  type UseFetchWithRetryResult,
  type UsePollResult,
} from '../../src/react/index.js';
import * as react from '../../src/react/index.js';

interface Job {
  status: string;
}

describe('the public types of pollite/react', () => {
  it('usePoll', () => {
    expectTypeOf(usePoll<Job>).parameters.toEqualTypeOf<[string | URL | null, (PollOptions<Job> | undefined)?]>();
    expectTypeOf(usePoll<Job>).returns.toEqualTypeOf<UsePollResult<Job>>();
    expectTypeOf<UsePollResult<Job>['status']>().toEqualTypeOf<'idle' | 'polling' | 'done' | 'error'>();
    expectTypeOf<UsePollResult<Job>['data']>().toEqualTypeOf<Job | undefined>();
    expectTypeOf<UsePollResult<Job>['nextAttemptAt']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<UsePollResult<Job>>().toMatchTypeOf<PollState<Job> & { retry(): void; cancel(): void }>();
  });

  it('useFetchWithRetry', () => {
    expectTypeOf(useFetchWithRetry<Job>).parameters.toEqualTypeOf<[string | URL | null, (UseFetchWithRetryOptions<Job> | undefined)?]>();
    expectTypeOf<UseFetchWithRetryResult<Job>>().toMatchTypeOf<
      FetchWithRetryState<Job> & { retry(): void; retryNow(): void; cancel(): void }
    >();
    expectTypeOf<UseFetchWithRetryResult<Job>['data']>().toEqualTypeOf<Job | undefined>();
    expectTypeOf<UseFetchWithRetryResult<Job>['maxAttempts']>().toEqualTypeOf<number>();
    expectTypeOf<UseFetchWithRetryOptions<Job>['parse']>().toEqualTypeOf<((response: Response) => Promise<Job>) | undefined>();
  });

  it('exports exactly the two hooks at runtime', () => {
    expectTypeOf<keyof typeof react>().toEqualTypeOf<'usePoll' | 'useFetchWithRetry'>();
    expect(Object.keys(react).sort()).toEqual(['useFetchWithRetry', 'usePoll']);
  });
});
