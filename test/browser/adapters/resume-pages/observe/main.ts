// pollite/observe without a framework: the same app with createFetchState and createPollState (or, with
// `?app=operation`, createOperationState), rendered by hand.
import { createFetchState, createOperationState, createPollState, type FetchView, type PollView } from '../../../../../src/observe/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';
import { operationAttributes, operationHook, operationOptions, operationUrl, recordTrail, type Progress, type Report } from '../operation-app.js';

recordShown();
recordTrail();
const section = document.createElement('section');
section.dataset.testid = 'job';
document.getElementById('app')!.append(section);
const show = (shown: Record<string, string>): void => {
  for (const [name, value] of Object.entries(shown)) section.setAttribute(name, value);
};
const controls = { retry() {}, retryNow() {}, stop() {}, secondsLeft: undefined };

if (operationHook) {
  const report = createOperationState<Report, Progress>(operationUrl, operationOptions);
  const render = (): void => show(operationAttributes(report.getSnapshot()));
  report.subscribe(render);
  render();
  report.start();
} else {
  let monitor = savedMonitor();
  const start = createFetchState<string>(startUrl(monitor), startOptions);
  let job = createPollState<Job>(monitor, pollOptions);
  const render = (): void => show(attributes({ ...job.getSnapshot(), ...controls } as PollView<Job>, { ...start.getSnapshot(), ...controls } as FetchView<string>));
  start.subscribe(() => {
    const now = start.getSnapshot();
    if (now.status === 'done' && monitor === null) {
      monitor = now.data;
      job = createPollState<Job>(monitor, pollOptions);
      job.subscribe(render);
      job.start();
    }
    render();
  });
  job.subscribe(render);
  render();
  start.start();
  job.start();
}
