import { createEffect, createSignal } from 'solid-js';
import html from 'solid-js/html';
import { render } from 'solid-js/web';
import { createFetchWithRetry, createPoll, createPollOperation } from '../../../../../src/solid/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';
import { operationAttributes, operationHook, operationOptions, operationUrl, recordTrail, type Progress, type Report } from '../operation-app.js';

const App = () => {
  const [monitor, setMonitor] = createSignal(savedMonitor());
  const start = createFetchWithRetry<string>(() => startUrl(monitor()), startOptions);
  createEffect(() => {
    if (start.status === 'done') setMonitor(start.data);
  });
  const job = createPoll<Job>(monitor, pollOptions);
  const attr = (name: string) => () => attributes(job, start)[name];
  return html`<section
    data-testid="job"
    data-status=${attr('data-status')}
    data-data=${attr('data-data')}
    data-error=${attr('data-error')}
    data-start=${attr('data-start')}
    data-start-error=${attr('data-start-error')}
  ></section>`;
};

const OperationApp = () => {
  const report = createPollOperation<Report, Progress>(operationUrl, operationOptions);
  const attr = (name: string) => () => operationAttributes(report)[name];
  return html`<section
    data-testid="job"
    data-status=${attr('data-status')}
    data-progress=${attr('data-progress')}
    data-data=${attr('data-data')}
    data-error=${attr('data-error')}
  ></section>`;
};

recordShown();
recordTrail();
render(operationHook ? OperationApp : App, document.getElementById('app')!);
