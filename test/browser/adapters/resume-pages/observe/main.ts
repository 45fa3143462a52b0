// pollite/observe without a framework: the same app with createFetchState and createPollState, rendered by hand.
import { createFetchState, createPollState, type FetchView, type PollView } from '../../../../../src/observe/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';

recordShown();
const section = document.createElement('section');
section.dataset.testid = 'job';
document.getElementById('app')!.append(section);

const controls = { retry() {}, retryNow() {}, stop() {}, secondsLeft: undefined };
let monitor = savedMonitor();
const start = createFetchState<string>(startUrl(monitor), startOptions);
let job = createPollState<Job>(monitor, pollOptions);
const render = (): void => {
  const shown = attributes({ ...job.getSnapshot(), ...controls } as PollView<Job>, { ...start.getSnapshot(), ...controls } as FetchView<string>);
  for (const [name, value] of Object.entries(shown)) section.setAttribute(name, value);
};
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
