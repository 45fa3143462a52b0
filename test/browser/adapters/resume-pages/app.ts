// What every framework's resume page shares: an app that starts a job with
// a POST and watches it, as a user would write it with a hook pair and
// `pollite/resume`. The start is `fetchWithRetry` with an Idempotency-Key
// and a checkpoint (a reload during it sends it again with the same key);
// the app keeps the monitor the start named (read from the answer's
// Location before the call settles); the watch is `poll` with a checkpoint
// in `use` that keeps the last body, so a reload shows the job at once and
// its first request waits for what the server asked.
import { checkpoint, webStorage } from '../../../../src/resume/index.js';
import type { PollOptions } from '../../../../src/index.js';
import type { FetchStateOptions, FetchView, PollView } from '../../../../src/observe/index.js';

export interface Job {
  status: 'running' | 'done';
  progress: number;
  result?: number;
}

/** The job of this page, from its URL (which a reload keeps): the test gives each test its own. */
export const job = new URLSearchParams(location.search).get('job') ?? 'none';
const store = webStorage(localStorage);
const MONITOR = `app:monitor:${job}`;

/** The monitor the app kept when the start named it, or null: no job started yet. */
export const savedMonitor = (): string | null => localStorage.getItem(MONITOR);

/** The start's URL until a monitor is known; then null, so the hook sends nothing. */
export const startUrl = (monitor: string | null): string | null => (monitor === null ? `/api/${job}/start` : null);

export const startOptions = (): FetchStateOptions<string> => ({
  init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ month: '2025-01' }) },
  idempotencyKey: true,
  resume: checkpoint({ store, key: `start:${job}` }),
  parse: (response) => {
    // Kept at once, in the same task as the answer: no reload can fall between the start's end and the app knowing its job.
    const monitor = new URL(response.headers.get('location')!, location.href).pathname;
    localStorage.setItem(MONITOR, monitor);
    return Promise.resolve(monitor);
  },
});

export const pollOptions = (): PollOptions<Job> => ({
  interval: 200,
  timeout: 60_000,
  isDone: (body) => body.status === 'done',
  use: [checkpoint({ store, key: `job:${job}`, data: true })],
});

/** The data-* attributes the job is shown with: what the test reads. */
export const attributes = (view: PollView<Job>, start: FetchView<string>): Record<string, string> => ({
  'data-status': view.status,
  'data-data': view.data === undefined ? '' : JSON.stringify(view.data),
  'data-error': view.error === undefined ? '' : `${(view.error as Error).name}: ${(view.error as Error).message}`,
  'data-start': start.status,
  'data-start-error': start.error === undefined ? '' : `${(start.error as Error).name}: ${(start.error as Error).message}`,
});

declare global {
  interface Window {
    /** When each value of the job's `data-data` was first shown, epoch ms: "shown before the first request" is checked with it. */
    shownAt: Record<string, number>;
  }
}

/** Records when each `data-data` value of the job is first shown; call before mounting. */
export function recordShown(): void {
  window.shownAt = {};
  const look = (): void => {
    const value = document.querySelector('[data-testid=job]')?.getAttribute('data-data');
    if (value) window.shownAt[value] ??= Date.now();
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-data'] });
}
