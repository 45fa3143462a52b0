/** A Redis operation that did not answer in time: a `TimeoutError` DOMException, as the platform's own. */
export const deadlineError = (ms: number): DOMException => new DOMException(`Redis did not answer within ${ms} ms`, 'TimeoutError');

/**
 * `work`'s result, or a rejection with a `TimeoutError` once `ms` have
 * passed; `work` is handed a signal that is aborted then, so that it sends
 * nothing after pollite gave up on it. A plain timer, cleared either way:
 * `AbortSignal.timeout` inside `AbortSignal.any` can be collected and never
 * fire on Node 20. When the timer fires, the answer may be waiting unread
 * (timers run before I/O in an event-loop turn, and a busy process runs
 * both late): one more turn lets it be read first, so the deadline
 * measures Redis, not this process's own lag. A late answer or failure of
 * `work` is dropped, never unhandled.
 */
export function withDeadline<T>(work: (expired: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const expired = new AbortController();
  let handle: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    handle = setTimeout(() => {
      handle = setTimeout(() => {
        const error = deadlineError(ms);
        expired.abort(error);
        reject(error);
      }, 0);
    }, ms);
  });
  const working = work(expired.signal);
  working.catch(() => undefined);
  return Promise.race([working, late]).finally(() => clearTimeout(handle));
}
