import type { QueryFunction, QueryObserverOptions } from '@tanstack/query-core';
import { describe, expectTypeOf, it } from 'vitest';
import { HttpError } from '../../src/index.js';
import { conditionalQueryFn, refetchUntil, retry, retryDelay, type RetryPolicyOptions } from '../../src/tanstack/index.js';

type Job = { id: string; status: 'running' | 'done' | 'failed' };
type JobKey = readonly ['job', string];

describe('pollite/tanstack types fit TanStack Query 5 options', () => {
  it('plugs into a query’s options without casts', () => {
    expectTypeOf(conditionalQueryFn<Job>('/jobs/1')).toExtend<QueryFunction<Job, JobKey>>();
    expectTypeOf(retry).toExtend<NonNullable<QueryObserverOptions<Job, Error>['retry']>>();
    expectTypeOf(retryDelay).toExtend<NonNullable<QueryObserverOptions<Job, HttpError>['retryDelay']>>();
    expectTypeOf(refetchUntil((job: Job) => job.status !== 'running', 2000)).toExtend<
      NonNullable<QueryObserverOptions<Job, Error, Job, Job, JobKey>['refetchInterval']>
    >();
    expectTypeOf<RetryPolicyOptions['maxRetries']>().toEqualTypeOf<number | undefined>();
  });
});
