/** A Redis operation that did not answer in time: a `TimeoutError` DOMException, as the platform's own. */
export const deadlineError = (ms: number): DOMException => new DOMException(`Redis did not answer within ${ms} ms`, 'TimeoutError');

/**
 * `work`, or a rejection with a `TimeoutError` once `ms` have passed. A
 * plain timer, cleared either way: `AbortSignal.timeout` inside
 * `AbortSignal.any` can be collected and never fire on Node 20. When the
 * timer fires, the answer may be waiting unread (timers run before I/O in
 * an event-loop turn, and a busy process runs both late): one more turn
 * lets it be read first, so the deadline measures Redis, not this
 * process's own lag. A late answer or failure of `work` is dropped, never
 * unhandled.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    handle = setTimeout(() => {
      handle = setTimeout(() => reject(deadlineError(ms)), 0);
    }, ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(handle));
}
