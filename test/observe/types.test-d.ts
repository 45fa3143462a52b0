// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { describe, expectTypeOf, it } from 'vitest';
import { createCountdown, createFetchState, createPollState, type FetchSnapshot, type PollSnapshot, type Subscribable } from '../../src/observe/index.js';

interface Job {
  status: string;
}

describe('the observable states', () => {
  it('a poll snapshot narrows on status', () => {
    const s = createPollState<Job>('/jobs/1').getSnapshot();
    expectTypeOf(s).toEqualTypeOf<PollSnapshot<Job>>();
    if (s.status === 'done') expectTypeOf(s.data).toEqualTypeOf<Job>();
    if (s.status === 'error') expectTypeOf(s.data).toEqualTypeOf<Job | undefined>();
    if (s.status === 'idle') expectTypeOf(s.nextAttemptAt).toEqualTypeOf<undefined>();
    if (s.status === 'polling') expectTypeOf(s.error).toEqualTypeOf<undefined>();
    if (s.status === 'polling') expectTypeOf(s.paced).toEqualTypeOf<boolean>();
    if (s.status !== 'polling') expectTypeOf(s.paced).toEqualTypeOf<false>();
  });

  it('a fetch snapshot narrows on status and loading', () => {
    const s = createFetchState<Job>('/report', () => ({ retries: 2 })).getSnapshot();
    expectTypeOf(s).toEqualTypeOf<FetchSnapshot<Job>>();
    if (s.status === 'done') expectTypeOf(s.data).toEqualTypeOf<Job>();
    if (s.loading) expectTypeOf(s.status).toEqualTypeOf<'loading'>();
    if (!s.loading) expectTypeOf(s.nextAttemptAt).toEqualTypeOf<undefined>();
    if (s.loading) expectTypeOf(s.paced).toEqualTypeOf<boolean>();
    if (!s.loading) expectTypeOf(s.paced).toEqualTypeOf<false>();
  });

  it('the countdown counts any state, in whole seconds or undefined', () => {
    expectTypeOf(createCountdown(createPollState('/x'))).toEqualTypeOf<Subscribable<number | undefined>>();
    expectTypeOf(createCountdown).parameter(0).toMatchTypeOf<Subscribable<{ readonly nextAttemptAt: number | undefined }>>();
  });
});
