// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { describe, expectTypeOf, it } from 'vitest';
import type { FetchView, PollView } from '../../src/observe/index.js';
import { createFetchWithRetry, createPoll } from '../../src/svelte/index.js';

interface Job {
  status: string;
}

describe('pollite/svelte types', () => {
  it('takes values and getters, and returns the same views as every adapter', () => {
    let id = 1;
    expectTypeOf(createPoll<Job>(() => `/jobs/${id}`, { interval: 1000 })).toEqualTypeOf<PollView<Job>>();
    expectTypeOf(createPoll<Job>(null, () => ({ isDone: (job) => job.status === 'done' }))).toEqualTypeOf<PollView<Job>>();
    expectTypeOf(createFetchWithRetry<Job>(new URL('http://x/report'), { retries: 2 })).toEqualTypeOf<FetchView<Job>>();
    id += 1;
  });

  it('status narrows data and error', () => {
    const poll = createPoll<Job>('/jobs/1');
    if (poll.status === 'done') expectTypeOf(poll.data).toEqualTypeOf<Job>();
    if (poll.status === 'error') expectTypeOf(poll.error).toEqualTypeOf<unknown>();
    expectTypeOf(poll.paced).toEqualTypeOf<boolean>();
    const report = createFetchWithRetry<Job>('/report');
    if (report.status === 'done') expectTypeOf(report.data).toEqualTypeOf<Job>();
    if (report.status === 'idle') expectTypeOf(report.loading).toEqualTypeOf<false>();
    expectTypeOf(report.paced).toEqualTypeOf<boolean>();
    // @ts-expect-error: a getter must return a url or null
    createPoll<Job>(() => 42);
  });
});
