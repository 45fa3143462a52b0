// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { createSignal } from 'solid-js';
import { describe, expectTypeOf, it } from 'vitest';
import type { FetchView, PollView } from '../../src/observe/index.js';
import { createFetchWithRetry, createPoll } from '../../src/solid/index.js';

interface Job {
  status: string;
}

describe('pollite/solid types', () => {
  it('takes values and accessors, and returns the same views as every adapter', () => {
    const [id] = createSignal(1);
    const [options] = createSignal({ interval: 1000 });
    expectTypeOf(createPoll<Job>(() => `/jobs/${id()}`, options)).toEqualTypeOf<PollView<Job>>();
    expectTypeOf(createFetchWithRetry<Job>('/report', { retries: 2 })).toEqualTypeOf<FetchView<Job>>();
  });

  it('status narrows data and error', () => {
    const poll = createPoll<Job>('/jobs/1');
    if (poll.status === 'done') expectTypeOf(poll.data).toEqualTypeOf<Job>();
    if (poll.status === 'error') expectTypeOf(poll.error).toEqualTypeOf<unknown>();
    expectTypeOf(poll.paced).toEqualTypeOf<boolean>();
    const report = createFetchWithRetry<Job>('/report');
    if (report.status === 'done') expectTypeOf(report.data).toEqualTypeOf<Job>();
    if (report.loading) expectTypeOf(report.status).toEqualTypeOf<'loading'>();
    expectTypeOf(report.paced).toEqualTypeOf<boolean>();
    // @ts-expect-error: parse must resolve to the data type
    createFetchWithRetry<Job>('/report', { parse: async () => 42 });
  });
});
