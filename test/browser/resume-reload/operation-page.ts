// The page of ../resume-reload.test.ts: on every load it makes the same
// call, `pollOperation` of its job with a checkpoint in localStorage, as an
// app would that starts an export when the page opens and must not start a
// second one when it is reloaded. What it ends with is shown on <body>.
import { pollOperation } from '../../../src/operation/index.js';
import { checkpoint, webStorage } from '../../../src/resume/index.js';

const job = new URLSearchParams(location.search).get('job') ?? 'none';
const show = (name: 'result' | 'error', value: string): void => void document.body.setAttribute(`data-${name}`, value);

// Loaded (on the test's clock): the test knows a reload's new page is the one running.
document.body.setAttribute('data-loaded', String(Date.now()));
pollOperation<unknown>(`/api/${job}/start`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ month: '2025-01' }),
  operation: {
    interval: 200,
    idempotencyKey: true,
    timeout: 60_000,
    resume: checkpoint({ store: webStorage(localStorage), key: `report:${job}`, owner: 'user-1' }),
  },
}).then(
  (result) => show('result', JSON.stringify(result)),
  (error: unknown) => show('error', `${(error as Error).name}: ${(error as Error).message}`),
);
