import type { Arrival } from './recorded-server.js';
import type { CrowdResult } from './crowd.js';
import { earlyRequests, exhaustedUntil, type EarlyRequest } from './told.js';

/** What a crowd's run against one limiter came to, from the server's side and the clients'. */
export interface LimiterRun {
  requests: number;
  /** Answers by status: `{ 200: 90, 429: 41 }`. */
  statuses: Record<number, number>;
  early: EarlyRequest[];
  /** Requests before the reset a 2xx announced as it spent the window's last request (remaining 0). */
  afterExhausted: EarlyRequest[];
  crowd: CrowdResult;
}

/** Counts a run's answers by status and its early requests. */
export function summarise(arrivals: readonly Arrival[], crowd: CrowdResult): LimiterRun {
  const statuses: Record<number, number> = {};
  for (const a of arrivals) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return { requests: arrivals.length, statuses, early: earlyRequests(arrivals), afterExhausted: earlyRequests(arrivals, exhaustedUntil), crowd };
}

/** One line per run in the test output: the numbers the interop report quotes. */
export function report(label: string, run: LimiterRun): void {
  const answers = Object.entries(run.statuses).map(([status, n]) => `${n} × ${status}`).join(', ');
  const { crowd } = run;
  console.log(
    `[interop] ${label}: ${crowd.done + crowd.gaveUp + crowd.timedOut + crowd.other.length} clients, ${run.requests} requests (${answers}), ` +
      `${run.early.length} early (${run.afterExhausted.length} more after a 2xx with remaining 0), ${crowd.gaveUp} gave up, ${crowd.timedOut} timed out, ${(crowd.ms / 1000).toFixed(1)} s`,
  );
}
