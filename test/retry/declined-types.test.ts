import { describe, expectTypeOf, it } from 'vitest';
import { fetchWithRetry, retry, type FetchRetryOptions, type PollEvent, type RetryOptions } from '../../src/index.js';

// Issue 35, items 2 and 4: the public types of onGiveUp, the give-up event and throwHttpErrors.

type GiveUpInfo = Parameters<NonNullable<RetryOptions['onGiveUp']>>[0];
type Reason = 'not-retryable' | 'not-idempotent' | 'body-not-replayable' | 'exhausted' | 'budget' | 'deadline';

describe('declined retries, in the types', () => {
  it('onGiveUp hears the error, the attempt and one of six reasons', () => {
    expectTypeOf<GiveUpInfo>().toEqualTypeOf<{ error: unknown; attempt: number; reason: Reason }>();
    expectTypeOf<RetryOptions['onGiveUp']>().toEqualTypeOf<((info: GiveUpInfo) => void) | undefined>();
    expectTypeOf<FetchRetryOptions['onGiveUp']>().toEqualTypeOf<RetryOptions['onGiveUp']>();
  });

  it('poll hears the same reasons as a give-up event', () => {
    type GiveUpEvent = Extract<PollEvent, { type: 'give-up' }>;
    expectTypeOf<GiveUpEvent>().toEqualTypeOf<{ type: 'give-up'; attempt: number; reason: Reason; status?: number }>();
  });

  it('throwHttpErrors is a boolean of fetchWithRetry alone', () => {
    expectTypeOf<FetchRetryOptions['throwHttpErrors']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RetryOptions>().not.toHaveProperty('throwHttpErrors');
    // @ts-expect-error throwHttpErrors is a boolean
    void fetchWithRetry('/x', { retry: { throwHttpErrors: 'yes' } }).catch(() => undefined);
    // @ts-expect-error retry has no responses to throw for
    void retry(async () => 1, { throwHttpErrors: true }).catch(() => undefined);
  });
});
