import type { PollEvent, WaitSource } from '../index.js';
import { describeBody } from './describe-body.js';
import { silentDisplay, type Display, type Snapshot } from './display/display.js';
import { formatDelay } from './format.js';
import { sanitize } from './sanitize.js';

/** How the status line names the server's signal that set a wait. */
const SIGNAL: Record<WaitSource, string> = {
  'retry-after': 'Retry-After',
  'retry-after-ms': 'retry-after-ms',
  ratelimit: 'RateLimit',
  'x-poll-interval': 'X-Poll-Interval',
  'grpc-pushback': 'grpc-retry-pushback-ms',
  body: 'body: retry hint',
};

/** What one run of `pollite <url>` counted, for the summary. */
export interface PollCounters {
  requests: number;
  notModified: number;
  retries: number;
  /** Body bytes received, of every answer. */
  bytes: number;
}

export interface PollTrackerOptions {
  /** Condition paths, shown in the answer text. */
  paths: readonly (readonly string[])[];
  verbose: boolean;
  now: () => number;
}

/**
 * Turns `poll`'s events and bodies into counters and the answers the display
 * shows: `200 running 45%`, `304 unchanged`, `503 - retry in 2.0 s (Retry-After)`,
 * `200 running 45% - next in 60.0 s (X-Poll-Interval)` (the server set the wait).
 */
export function pollTracker({ paths, verbose, now }: PollTrackerOptions) {
  let display: Display = silentDisplay;
  const startedAt = now();
  const counters: PollCounters = { requests: 0, notModified: 0, retries: 0, bytes: 0 };
  let status: number | undefined;
  let networkError: string | undefined;
  /** The last answer shown, to which a wait the server set is added. */
  let shown = '';

  const snapshot = (): Snapshot => ({ elapsedMs: now() - startedAt, requests: counters.requests });

  const onEvent = (event: PollEvent): void => {
    switch (event.type) {
      case 'request':
        counters.requests += 1;
        status = undefined;
        networkError = undefined;
        if (verbose) display.log(`> request ${counters.requests}${event.conditional ? ' with If-None-Match' : ''}`);
        break;
      case 'response':
        status = event.status;
        if (verbose) display.log(`< ${event.status} after ${event.ms} ms`);
        if (event.status === 304) {
          counters.notModified += 1;
          shown = '304 unchanged';
          display.answer({ text: shown, tone: 'unchanged' });
        }
        break;
      case 'retry': {
        counters.retries += 1;
        const what = event.status ?? (event.reason === 'timeout' ? 'request timed out' : (networkError ?? 'network error'));
        const why = event.retryAfter === null ? 'backoff' : SIGNAL[event.source ?? 'retry-after'];
        display.answer({ text: `${what} - retry in ${formatDelay(event.delay)} (${why})`, tone: 'retry' });
        break;
      }
      case 'give-up': {
        // A status that is never retried (a 4xx) is said by the error line itself, and exits 2 at once.
        if (event.reason === 'not-retryable') break;
        const what = event.status ?? (networkError ?? 'network error');
        display.answer({ text: `${what} - gave up (${event.reason === 'deadline' ? '--timeout passed' : 'retries used up'})`, tone: 'error' });
        break;
      }
      case 'wait':
        if (verbose) display.log(`  next request in ${formatDelay(event.delay)}${event.source ? ` (${SIGNAL[event.source]})` : ''}`);
        // A wait the server set (GitHub's X-Poll-Interval, a rate limit spread) is said on the status line: it is not a hang.
        if (event.source) display.answer({ text: `${shown} - next in ${formatDelay(event.delay)} (${SIGNAL[event.source]})`, tone: 'ok' });
        break;
      case 'cooldown':
        display.answer({ text: `origin cooling down - next request in ${formatDelay(event.delay)} (Retry-After)`, tone: 'retry' });
        break;
      default:
        // pause, resume, wake, share: browser and multi-poller states a shell never sees.
        break;
    }
  };

  return {
    counters,
    snapshot,
    /** Where answers go from now on. */
    show(next: Display): void {
      display = next;
    },
    onEvent,
    /** A parsed 2xx body arrived. */
    onBody(body: unknown): void {
      shown = `${status ?? 200} ${describeBody(body, paths)}`;
      display.answer({ text: shown, tone: 'ok' });
    },
    /** The transport failed; the text names why (`ECONNREFUSED`). */
    onNetworkError(text: string): void {
      networkError = sanitize(text, 80);
    },
  };
}

export type PollTracker = ReturnType<typeof pollTracker>;
