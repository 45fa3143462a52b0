// The same job as ./app.ts, written with the operation hook (`?app=operation`):
// one call, `usePollOperation` (React, Vue), `createPollOperation` (Svelte,
// Solid) or `createOperationState` (observe), with an Idempotency-Key and a
// checkpoint in `operation.resume`, as the hooks' documentation writes it.
// A reload continues the same operation: at its monitor, or its start sent
// again with the key it was sent with.
import type { OperationSnapshot } from '../../../../src/observe/index.js';
import type { PollOperationInit } from '../../../../src/operation/index.js';
import { checkpoint, webStorage } from '../../../../src/resume/index.js';
import { job } from './app.js';

/** Which app the page mounts: the operation hook's (`?app=operation`), or the recipe of a fetch and a poll. */
export const operationHook = new URLSearchParams(location.search).get('app') === 'operation';

/** The monitor's body (Azure's conventions). */
export interface Progress {
  status: 'Running' | 'Succeeded';
  percent?: number;
  resourceLocation?: string;
}

/** The result, fetched from the final body's `resourceLocation`. */
export interface Report {
  rows: number;
}

export const operationUrl = `/api/${job}/start`;

export const operationOptions = (): PollOperationInit<Progress> => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ month: '2025-01' }),
  operation: {
    interval: 200,
    timeout: 60_000,
    idempotencyKey: true,
    resume: checkpoint({ store: webStorage(localStorage), key: `report:${job}` }),
  },
});

/** The data-* attributes the operation is shown with: what the test reads. */
export const operationAttributes = (view: OperationSnapshot<Report, Progress>): Record<string, string> => ({
  'data-status': view.status,
  'data-progress': view.progress === undefined ? '' : JSON.stringify(view.progress),
  'data-data': view.data === undefined ? '' : JSON.stringify(view.data),
  'data-error': view.error === undefined ? '' : `${(view.error as Error).name}: ${(view.error as Error).message}`,
});

declare global {
  interface Window {
    /** Every change of the job's `data-progress` and `data-data` since this load, in order (`data-progress=...`): "shown before" is checked here. */
    trail: string[];
  }
}

/** Records every change of the job's progress and result, in order; call before mounting. */
export function recordTrail(): void {
  window.trail = [];
  const last: Record<string, string> = {};
  const look = (): void => {
    const section = document.querySelector('[data-testid=job]');
    for (const name of ['data-progress', 'data-data']) {
      const value = section?.getAttribute(name) ?? '';
      if (value !== (last[name] ?? '')) window.trail.push(`${name}=${value}`);
      last[name] = value;
    }
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-progress', 'data-data'] });
}
