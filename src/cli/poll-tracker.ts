import type { PollEvent } from '../index.js';
import { describeBody } from './describe-body.js';
import { silentDisplay, type Display, type Snapshot } from './display/display.js';
import { formatDelay } from './format.js';
import { sanitize } from './sanitize.js';

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
 * shows: `200 running 45%`, `304 unchanged`, `503 - retry in 2.0 s (Retry-After)`.
 */
export function pollTracker({ paths, verbose, now }: PollTrackerOptions) {
  let display: Display = silentDisplay;
  const startedAt = now();
  const counters: PollCounters = { requests: 0, notModified: 0, retries: 0, bytes: 0 };
  let status: number | undefined;
  let networkError: string | undefined;

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
          display.answer({ text: '304 unchanged', tone: 'unchanged' });
        }
        break;
      case 'retry': {
        counters.retries += 1;
        const what = event.status ?? (event.reason === 'timeout' ? 'request timed out' : (networkError ?? 'network error'));
        const why = event.retryAfter === null ? 'backoff' : 'Retry-After';
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
        if (verbose) display.log(`  next request in ${formatDelay(event.delay)}`);
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
      display.answer({ text: `${status ?? 200} ${describeBody(body, paths)}`, tone: 'ok' });
    },
    /** The transport failed; the text names why (`ECONNREFUSED`). */
    onNetworkError(text: string): void {
      networkError = sanitize(text, 80);
    },
  };
}

export type PollTracker = ReturnType<typeof pollTracker>;
