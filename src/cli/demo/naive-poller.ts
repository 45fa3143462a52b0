import type { Clock } from '../../index.js';
import { wallClock } from './demo-clock.js';

/**
 * The poller most code starts with, kept for the demo's comparison:
 * `setInterval` + `fetch` at a fixed rate. It overlaps when answers are slow,
 * ignores status codes and Retry-After, and re-downloads unchanged data. It
 * does stop when it sees a terminal state, and `stop()` aborts whatever it
 * still has in flight, so it never holds the process open.
 *
 * The interval is `setInterval`'s (the next tick armed as a tick starts, not
 * when its request ends) on the demo's clock, so a virtual clock drives it too.
 */
export function naivePoller(
  url: string,
  options: { interval: number; fetch: typeof fetch; onDone: () => void; clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'> },
) {
  const clock = options.clock ?? wallClock;
  const controller = new AbortController();
  let stopped = false;
  let timer: unknown;
  const stop = (): void => {
    stopped = true;
    clock.clearTimeout(timer);
  };
  const tick = async (): Promise<void> => {
    timer = clock.setTimeout(() => void tick(), options.interval);
    try {
      const response = await options.fetch(url, { signal: controller.signal });
      const job = (await response.json()) as { status?: unknown };
      if (!stopped && (job.status === 'done' || job.status === 'failed')) {
        stop();
        options.onDone();
      }
    } catch {
      // Errors are what naive pollers ignore best.
    }
  };
  timer = clock.setTimeout(() => void tick(), options.interval);
  return {
    stop(): void {
      stop();
      controller.abort();
    },
  };
}
