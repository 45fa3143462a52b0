import { createEffect, createSignal } from 'solid-js';
import html from 'solid-js/html';
import { render } from 'solid-js/web';
import { createFetchWithRetry, createPoll } from '../../../../../src/solid/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';

recordShown();
render(() => {
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
}, document.getElementById('app')!);
