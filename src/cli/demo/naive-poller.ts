/**
 * The poller most code starts with, kept for the demo's comparison:
 * `setInterval` + `fetch` at a fixed rate. It overlaps when answers are slow,
 * ignores status codes and Retry-After, and re-downloads unchanged data. It
 * does stop when it sees a terminal state, and `stop()` aborts whatever it
 * still has in flight, so it never holds the process open.
 */
export function naivePoller(url: string, options: { interval: number; fetch: typeof fetch; onDone: () => void }) {
  const controller = new AbortController();
  const timer = setInterval(async () => {
    try {
      const response = await options.fetch(url, { signal: controller.signal });
      const job = (await response.json()) as { status?: unknown };
      if (job.status === 'done' || job.status === 'failed') {
        clearInterval(timer);
        options.onDone();
      }
    } catch {
      // Errors are what naive pollers ignore best.
    }
  }, options.interval);
  return {
    stop(): void {
      clearInterval(timer);
      controller.abort();
    },
  };
}
