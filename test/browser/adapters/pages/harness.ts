// What every framework's page shares: the config the test mounts with, the
// options it maps to, the attributes a view is shown with, and the window API.
import { constant, type PollOptions } from '../../../../src/index.js';
import { type FetchStateOptions, type FetchView, type OperationView, type PollView } from '../../../../src/observe/index.js';
import type { PollOperationInit } from '../../../../src/operation/index.js';

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

/** The operation panel: a POST to `url` (null: nothing started), its monitor polled every `interval` ms. */
export interface OperationConfig {
  url: string | null;
  interval: number;
  retries: number;
}

export interface Config {
  poll: PollConfig;
  fetch: FetchConfig;
  operation: OperationConfig;
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

/** The monitor's body while the operation runs, and at its end (Azure's conventions). */
export interface Progress {
  status: 'Running' | 'Succeeded' | 'Failed';
  percent?: number;
}

/** The operation's result, fetched from the final body's `resourceLocation`. */
export interface Report {
  rows: number;
}

/** What the test checks the server received: this body, and a key that makes the POST safe to retry. */
export const OPERATION_BODY = JSON.stringify({ month: '2025-01' });

export const operationOptions = (config: OperationConfig): PollOperationInit<Progress> => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: OPERATION_BODY,
  // onEvent: the page's own log of the operation's polls (`wait` before the first one): the test reads where it stands.
  operation: { idempotencyKey: true, interval: config.interval, retries: config.retries, onEvent: (event) => void window.operationEvents.push(event.type) },
});

/** What the README's example shows while a wait counts down: a paced wait is the server's, not a failure. */
export const waitLine = (view: PollView<unknown> | FetchView<unknown>): string =>
  view.secondsLeft === undefined
    ? ''
    : `${view.paced ? 'Busy: the server asked us to wait' : `Attempt ${view.attempt} of ${view.limit} failed`}: next try in ${view.secondsLeft} s`;

/** The data-* attributes a view is shown with: what the test reads. */
export const attributes = (view: PollView<unknown> | FetchView<unknown>): Record<string, string> => ({
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

/** The operation panel's attributes: a view's, plus the monitor's latest body and what the error says. */
export const operationAttributes = (view: OperationView<Report, Progress>): Record<string, string> => ({
  ...attributes(view),
  'data-progress': view.progress === undefined ? '' : JSON.stringify(view.progress),
  'data-message': view.error === undefined ? '' : String((view.error as Error).message),
  'data-failed': String((view.error as { status?: unknown } | undefined)?.status ?? ''),
});

/** What a page gives the test, on `window.harness`. */
export interface Harness {
  mount(config: Config): void;
  setUrls(urls: { poll?: string | null; fetch?: string | null; operation?: string | null }): void;
  unmount(): void;
}

declare global {
  interface Window {
    harness: Harness;
    /** Every value each view's `data-data`, `data-seconds`, `data-status`, `data-paced`, `data-line` and `data-progress` ever took, in order: "never rendered" is checked here. */
    seen: Record<string, string[]>;
    /** Every change of those attributes, all views together, in the order rendered (`operation:data-progress=...`): "shown before" is checked here. */
    trail: string[];
    /** The type of every event the operation panel's `onEvent` got, in order. */
    operationEvents: string[];
  }
}

/** Installs the page's harness, and records every attribute change of the views as it is rendered. */
export function install(harness: Harness): void {
  window.seen = {};
  window.trail = [];
  window.operationEvents = [];
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target as HTMLElement;
      const name = `${target.dataset.testid}:${record.attributeName}`;
      const value = target.getAttribute(record.attributeName!) ?? '';
      const list = (window.seen[name] ??= []);
      if (list.at(-1) !== value) {
        list.push(value);
        window.trail.push(`${name}=${value}`);
      }
    }
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-data', 'data-seconds', 'data-status', 'data-paced', 'data-line', 'data-progress'] });
  window.harness = harness;
}
