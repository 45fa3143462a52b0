// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { describe, expectTypeOf, it } from 'vitest';
import { ref } from 'vue';
import type { FetchView, PollView } from '../../src/observe/index.js';
import { useFetchWithRetry, usePoll } from '../../src/vue/index.js';

interface Job {
  status: string;
}

describe('pollite/vue types', () => {
  it('takes values, refs and getters, and returns the same views as every adapter', () => {
    const id = ref(1);
    expectTypeOf(usePoll<Job>(() => `/jobs/${id.value}`, { interval: 1000 })).toEqualTypeOf<PollView<Job>>();
    expectTypeOf(usePoll<Job>(ref<string | null>(null), () => ({ isDone: (job) => job.status === 'done' }))).toEqualTypeOf<PollView<Job>>();
    expectTypeOf(useFetchWithRetry<Job>('/report', ref({ retries: 2 }))).toEqualTypeOf<FetchView<Job>>();
  });

  it('status narrows data and error', () => {
    const poll = usePoll<Job>('/jobs/1');
    if (poll.status === 'done') expectTypeOf(poll.data).toEqualTypeOf<Job>();
    if (poll.status === 'error') expectTypeOf(poll.error).toEqualTypeOf<unknown>();
    if (poll.status === 'polling') expectTypeOf(poll.paused).toEqualTypeOf<boolean>();
    expectTypeOf(poll.paced).toEqualTypeOf<boolean>();
    const report = useFetchWithRetry<Job>('/report');
    if (report.status === 'done') expectTypeOf(report.data).toEqualTypeOf<Job>();
    if (report.loading) expectTypeOf(report.data).toEqualTypeOf<Job | undefined>();
    expectTypeOf(report.secondsLeft).toEqualTypeOf<number | undefined>();
    expectTypeOf(report.paced).toEqualTypeOf<boolean>();
    // @ts-expect-error: isDone is given the parsed body
    usePoll<Job>('/jobs/1', { isDone: (job: number) => job > 1 });
  });
});
