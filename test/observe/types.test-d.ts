// Type tests, run by `vitest --typecheck` (and checked by tsc): nothing here runs.
import { describe, expectTypeOf, it } from 'vitest';
import { createCountdown, createFetchState, createOperationState, createPollState, type FetchSnapshot, type OperationSnapshot, type PollSnapshot, type Subscribable } from '../../src/observe/index.js';
import { usePollOperation } from '../../src/react/index.js';
import { createPollOperation } from '../../src/solid/index.js';

interface Job {
  status: string;
}

describe('the observable states', () => {
  it("an operation snapshot narrows on status: data is the result when done, progress the monitor's body", () => {
    const s = createOperationState<{ rows: number }, { percent: number }>('/reports', { method: 'POST' }).getSnapshot();
    expectTypeOf(s).toEqualTypeOf<OperationSnapshot<{ rows: number }, { percent: number }>>();
    if (s.status === 'done') expectTypeOf(s.data).toEqualTypeOf<{ rows: number }>();
    if (s.status === 'polling') expectTypeOf(s.data).toEqualTypeOf<{ rows: number } | undefined>();
    expectTypeOf(s.progress).toEqualTypeOf<{ percent: number } | undefined>();
    const view = usePollOperation<{ rows: number }, { percent: number }>(null, { operation: { onUpdate: (status) => expectTypeOf(status).toEqualTypeOf<{ percent: number }>() } });
    if (view.status === 'done') expectTypeOf(view.data).toEqualTypeOf<{ rows: number }>();
    expectTypeOf(view.secondsLeft).toEqualTypeOf<number | undefined>();
    expectTypeOf(createPollOperation<{ rows: number }>(null).data).toEqualTypeOf<{ rows: number } | undefined>();
  });

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
