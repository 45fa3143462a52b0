import { parseRetryAfter } from '../../kit/index.js';
import { countBodyBytes } from '../body-bytes.js';
import type { DemoWire } from './demo-clock.js';

/** What one poller did to the demo API, measured where the requests leave. */
export interface PollerReport {
  requests: number;
  /** Requests sent while the scripted 503 outage was on. */
  duringOutage: number;
  /** Requests sent before a Retry-After the poller had already received ran out. */
  ignoredRetryAfter: number;
  /** Body bytes received. */
  bytes: number;
  notModified: number;
  /** When the poller saw the terminal state, ms after the job started; undefined if it never did. */
  sawFinishAt?: number | undefined;
}

/**
 * Wraps a poller's fetch so every request is counted the same way for both
 * pollers: time sent (against the job's clock), answer, bytes, and whether it
 * went out while a Retry-After it had received still held.
 */
export function requestLog(options: {
  jobStart: number;
  outage?: { from: number; to: number } | undefined;
  now?: () => number;
  /** Told when each request leaves and when its answer is in, body and all. */
  wire?: DemoWire;
}) {
  const now = options.now ?? (() => Date.now());
  const report: PollerReport = { requests: 0, duringOutage: 0, ignoredRetryAfter: 0, bytes: 0, notModified: 0 };
  let paceUntil = 0;
  const counting = new Set<Promise<void>>();

  const fetchThrough =
    (base: typeof fetch): typeof fetch =>
    async (input, init) => {
      const sentAt = now();
      report.requests += 1;
      const sinceStart = sentAt - options.jobStart;
      if (options.outage && sinceStart >= options.outage.from && sinceStart < options.outage.to) report.duringOutage += 1;
      if (sentAt < paceUntil) report.ignoredRetryAfter += 1;
      const answered = options.wire?.send() ?? (() => undefined);
      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        answered();
        throw error;
      }
      const counted = countBodyBytes(response, (bytes) => (report.bytes += bytes));
      counting.add(counted);
      void counted.then(() => {
        counting.delete(counted);
        answered();
      });
      if (response.status === 304) report.notModified += 1;
      // Read as pollite reads it (seconds or an HTTP-date), but uncapped: the report counts what the server asked for.
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'), { now: now(), max: Number.MAX_SAFE_INTEGER });
      if (retryAfter !== null) paceUntil = Math.max(paceUntil, now() + retryAfter);
      return response;
    };

  return {
    report,
    fetch: fetchThrough,
    /** Resolves when every body received so far has been counted. */
    settled: async (): Promise<void> => {
      await Promise.all(counting);
    },
    /** The poller saw the terminal state now. */
    sawFinish(): void {
      report.sawFinishAt ??= now() - options.jobStart;
    },
  };
}
