import { countBodyBytes } from './body-bytes.js';

/**
 * Wraps `fetch` to count the body bytes of answers `poll` will not read
 * (errors, 3xx) and to name transport failures
 * (`ECONNREFUSED`) for the status line.
 */
export function instrumentedFetch(
  base: typeof fetch,
  hooks: { onBytes(bytes: number): void; onNetworkError(text: string): void },
): typeof fetch {
  return async (input, init) => {
    try {
      const response = await base(input, init);
      if (!response.ok) void countBodyBytes(response, hooks.onBytes);
      return response;
    } catch (error) {
      if (!init?.signal?.aborted) hooks.onNetworkError(networkErrorText(error));
      throw error;
    }
  };
}

/** `fetch failed` says nothing; its cause's code (`ECONNREFUSED`) says what happened. */
export function networkErrorText(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
