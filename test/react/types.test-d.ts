// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { describe, expectTypeOf, it } from 'vitest';
import type { PollOptions } from '../../src/index.js';
import type { FetchStateOptions, FetchView, PollView } from '../../src/observe/index.js';
import { useFetchWithRetry, usePoll } from '../../src/react/index.js';

interface Job {
  status: string;
}

describe('pollite/react types', () => {
  it('usePoll takes a url or null and the options of poll, and returns a PollView', () => {
    expectTypeOf(usePoll<Job>).parameters.toEqualTypeOf<[string | URL | null, (PollOptions<Job> | undefined)?]>();
    expectTypeOf(usePoll<Job>).returns.toEqualTypeOf<PollView<Job>>();
    expectTypeOf<PollView<Job>['status']>().toEqualTypeOf<'idle' | 'polling' | 'done' | 'error'>();
    expectTypeOf<PollView<Job>['secondsLeft']>().toEqualTypeOf<number | undefined>();
  });

  it("usePoll's status narrows data and error", () => {
    const poll = usePoll<Job>('/jobs/1');
    if (poll.status === 'done') {
      expectTypeOf(poll.data).toEqualTypeOf<Job>();
      expectTypeOf(poll.error).toEqualTypeOf<undefined>();
      expectTypeOf(poll.nextAttemptAt).toEqualTypeOf<undefined>();
    }
    if (poll.status === 'error') {
      expectTypeOf(poll.data).toEqualTypeOf<Job | undefined>();
      expectTypeOf(poll.error).toEqualTypeOf<unknown>();
    }
    if (poll.status === 'polling') {
      expectTypeOf(poll.data).toEqualTypeOf<Job | undefined>();
      expectTypeOf(poll.nextAttemptAt).toEqualTypeOf<number | undefined>();
      expectTypeOf(poll.paused).toEqualTypeOf<boolean>();
    }
    if (poll.status === 'idle') {
      expectTypeOf(poll.error).toEqualTypeOf<undefined>();
      expectTypeOf(poll.paused).toEqualTypeOf<false>();
    }
    expectTypeOf(poll.retry).toEqualTypeOf<() => void>();
    expectTypeOf(poll.retryNow).toEqualTypeOf<() => void>();
    expectTypeOf(poll.stop).toEqualTypeOf<() => void>();
  });

  it('useFetchWithRetry narrows on status and on loading', () => {
    expectTypeOf(useFetchWithRetry<Job>).parameters.toEqualTypeOf<[string | URL | null, (FetchStateOptions<Job> | undefined)?]>();
    expectTypeOf(useFetchWithRetry<Job>).returns.toEqualTypeOf<FetchView<Job>>();
    const report = useFetchWithRetry<Job>('/report', { parse: async (r) => (await r.json()) as Job });
    if (report.status === 'done') expectTypeOf(report.data).toEqualTypeOf<Job>();
    if (report.status === 'error') expectTypeOf(report.error).toEqualTypeOf<unknown>();
    if (report.loading) {
      expectTypeOf(report.status).toEqualTypeOf<'loading'>();
      expectTypeOf(report.nextAttemptAt).toEqualTypeOf<number | undefined>();
    }
    expectTypeOf<FetchStateOptions<Job>['parse']>().toEqualTypeOf<((response: Response) => Promise<Job>) | undefined>();
    // @ts-expect-error: the signal of the state is its own; stop() it instead
    useFetchWithRetry<Job>('/report', { signal: new AbortController().signal });
  });
});
