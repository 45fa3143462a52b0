// What every framework's page shares: the config the test mounts with, the
// options it maps to, the attributes a view is shown with, and the window API.
import { constant, type PollOptions } from '../../../../src/index.js';
import { type FetchStateOptions, type FetchView, type PollView } from '../../../../src/observe/index.js';

export interface PollConfig {
  url: string | null;
  interval: number;
  retries: number;
  backoffMs: number;
}

export interface FetchConfig {
  url: string | null;
  retries: number;
  backoffMs: number;
}

export interface Config {
  poll: PollConfig;
  fetch: FetchConfig;
}

export interface Body {
  status?: string;
  id?: string;
}

export const pollOptions = (config: PollConfig): PollOptions<Body> => ({
  interval: config.interval,
  retries: config.retries,
  backoff: constant(config.backoffMs),
  isDone: (body) => body.status === 'done',
});

export const fetchOptions = (config: FetchConfig): FetchStateOptions<Body> => ({ retries: config.retries, backoff: constant(config.backoffMs) });

/** What the README's example shows while a wait counts down: a paced wait is the server's, not a failure. */
export const waitLine = (view: PollView<Body> | FetchView<Body>): string =>
  view.secondsLeft === undefined
    ? ''
    : `${view.paced ? 'Busy: the server asked us to wait' : `Attempt ${view.attempt} of ${view.limit} failed`}: next try in ${view.secondsLeft} s`;

/** The data-* attributes a view is shown with: what the test reads. */
export const attributes = (view: PollView<Body> | FetchView<Body>): Record<string, string> => ({
  'data-status': view.status,
  'data-attempt': String(view.attempt),
  'data-limit': String(view.limit),
  'data-next': view.nextAttemptAt === undefined ? '' : String(view.nextAttemptAt),
  'data-seconds': view.secondsLeft === undefined ? '' : String(view.secondsLeft),
  'data-paused': 'paused' in view ? String(view.paused) : '',
  'data-paced': String(view.paced),
  'data-line': waitLine(view),
  'data-data': view.data === undefined ? '' : JSON.stringify(view.data),
  'data-error': view.error === undefined ? '' : String((view.error as Error).name ?? view.error),
});

/** What a page gives the test, on `window.harness`. */
export interface Harness {
  mount(config: Config): void;
  setUrls(urls: { poll?: string | null; fetch?: string | null }): void;
  unmount(): void;
}

declare global {
  interface Window {
    harness: Harness;
    /** Every value each view's `data-data`, `data-seconds`, `data-status`, `data-paced` and `data-line` ever took, in order: "never rendered" is checked here. */
    seen: Record<string, string[]>;
  }
}

/** Installs the page's harness, and records every attribute change of the views as it is rendered. */
export function install(harness: Harness): void {
  window.seen = {};
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target as HTMLElement;
      const name = `${target.dataset.testid}:${record.attributeName}`;
      const value = target.getAttribute(record.attributeName!) ?? '';
      const list = (window.seen[name] ??= []);
      if (list.at(-1) !== value) list.push(value);
    }
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-data', 'data-seconds', 'data-status', 'data-paced', 'data-line'] });
  window.harness = harness;
}
