import { readBounded } from './read-bounded.js';

/** The most bytes of a non-2xx body read: enough for a problem+json `title` and `detail`, all that is ever shown. */
export const EXCERPT_BYTES = 4096;
/** How long a non-2xx body may take to come, ms; one that stalls is not waited for longer. */
export const EXCERPT_WAIT_MS = 1000;

export interface InstrumentedFetch {
  fetch: typeof fetch;
  /** The first bytes of a non-2xx answer's body (its body itself is then used up), or `undefined` for any other answer. */
  excerptOf(response: Response): Uint8Array | undefined;
}

/**
 * Wraps `fetch` to read the first {@link EXCERPT_BYTES} of every non-2xx
 * body (for the line that shows what a 4xx said, and to count its bytes),
 * cancelling the rest, and to name transport failures (`ECONNREFUSED`) for
 * the status line. A non-2xx body is never read whole nor cloned: an
 * endless 503 body costs 4 KiB, not all the memory there is. The answer
 * is handed on with those bytes as its body (its status and headers as
 * they were): what poll reads of it (a retry hint) is the excerpt.
 */
export function instrumentedFetch(
  base: typeof fetch,
  hooks: { onBytes(bytes: number): void; onNetworkError(text: string): void },
): InstrumentedFetch {
  const excerpts = new WeakMap<Response, Uint8Array>();
  return {
    fetch: async (input, init) => {
      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        if (!init?.signal?.aborted) hooks.onNetworkError(networkErrorText(error));
        throw error;
      }
      if (response.ok || response.body === null) return response;
      let excerpt: Uint8Array = new Uint8Array(0);
      try {
        excerpt = (await readBounded(response.body, { limit: EXCERPT_BYTES, waitMs: EXCERPT_WAIT_MS, onBytes: hooks.onBytes })).bytes;
      } catch {
        // The error body broke off: the status is the answer all the same.
      }
      if (init?.signal?.aborted) throw init.signal.reason;
      // Handed on with the excerpt as its body, so that poll can still read a retry hint in it (a 429's RetryInfo).
      let kept = response;
      try {
        kept = new Response(excerpt as Uint8Array<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers: response.headers });
      } catch {
        // A status a Response cannot be made with: handed on as it is, its body used up.
      }
      excerpts.set(kept, excerpt);
      return kept;
    },
    excerptOf: (response) => excerpts.get(response),
  };
}

/** `fetch failed` says nothing; its cause's code (`ECONNREFUSED`) says what happened. */
export function networkErrorText(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
