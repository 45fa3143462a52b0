import { describe, expectTypeOf, it } from 'vitest';
import {
  createRetryBudget,
  fetchWithRetry,
  isRetryableError,
  retry,
  type FetchRetryOptions,
  type FetchWithRetryInit,
  type RetryBudget,
  type RetryContext,
  type RetryInfo,
  type RetryOptions,
  type WaitSource,
} from '../../src/index.js';

describe('public types of retry', () => {
  it('retry resolves with what fn resolves with, and hands it a context', () => {
    expectTypeOf(retry(async () => 42)).toEqualTypeOf<Promise<number>>();
    expectTypeOf(retry<string>).parameter(0).parameter(0).toEqualTypeOf<RetryContext>();
    expectTypeOf<RetryContext>().toEqualTypeOf<{ attempt: number; signal: AbortSignal }>();
    expectTypeOf<RetryInfo>().toEqualTypeOf<{ error: unknown; attempt: number; delay: number; paced: boolean; source?: WaitSource }>();
  });

  it('fetchWithRetry takes fetch arguments plus retry, and resolves with a Response', () => {
    expectTypeOf(fetchWithRetry).parameter(0).toEqualTypeOf<string | URL | Request>();
    expectTypeOf(fetchWithRetry).parameter(1).toEqualTypeOf<FetchWithRetryInit | undefined>();
    expectTypeOf(fetchWithRetry).returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf<FetchWithRetryInit>().toMatchTypeOf<RequestInit>();
    expectTypeOf<FetchRetryOptions>().toMatchTypeOf<RetryOptions>();
    expectTypeOf<FetchRetryOptions['idempotencyKey']>().toEqualTypeOf<boolean | string | undefined>();
  });

  it('options are checked at compile time too', () => {
    // @ts-expect-error retries is a number
    void retry(async () => 1, { retries: '3' }).catch(() => undefined);
    // @ts-expect-error statusCodes are numbers
    void fetchWithRetry('/x', { retry: { statusCodes: ['503'] } }).catch(() => undefined);
    // @ts-expect-error idempotencyKey is a boolean or a string
    void fetchWithRetry('/x', { retry: { idempotencyKey: 1 } }).catch(() => undefined);
  });

  it('the budget and the guard', () => {
    expectTypeOf(createRetryBudget()).toMatchTypeOf<RetryBudget>();
    expectTypeOf(createRetryBudget().available).toEqualTypeOf<number>();
    expectTypeOf(isRetryableError).toEqualTypeOf<(error: unknown) => boolean>();
    expectTypeOf<RetryOptions['budget']>().toEqualTypeOf<RetryBudget | undefined>();
  });
});
