import { createSignal } from 'solid-js';
import html from 'solid-js/html';
import { render } from 'solid-js/web';
import type { FetchView, OperationView, PollView } from '../../../../../src/observe/index.js';
import { createFetchWithRetry, createPoll, createPollOperation } from '../../../../../src/solid/index.js';
import { attributes, fetchOptions, install, operationAttributes, operationOptions, pollOptions, type Body, type Config, type Progress, type Report } from '../harness.js';

// solid-js/html: Solid's fine-grained templates without a JSX build step; each `() => ...` is a reactive binding.
const view = (id: string, v: PollView<Body> | FetchView<Body> | OperationView<Report, Progress>, shown = () => attributes(v)) => {
  const attr = (name: string) => () => shown()[name] ?? '';
  return html`<section
    data-testid=${id}
    data-status=${attr('data-status')}
    data-attempt=${attr('data-attempt')}
    data-limit=${attr('data-limit')}
    data-next=${attr('data-next')}
    data-seconds=${attr('data-seconds')}
    data-paused=${attr('data-paused')}
    data-paced=${attr('data-paced')}
    data-line=${attr('data-line')}
    data-data=${attr('data-data')}
    data-error=${attr('data-error')}
    data-progress=${attr('data-progress')}
    data-message=${attr('data-message')}
    data-failed=${attr('data-failed')}
  >
    <button data-testid=${`${id}-retry`} onClick=${() => v.retry()}>Retry</button>
    <button data-testid=${`${id}-retry-now`} onClick=${() => v.retryNow()}>Try now</button>
    <button data-testid=${`${id}-stop`} onClick=${() => v.stop()}>Stop</button>
  </section>`;
};

let dispose: (() => void) | undefined;
let setConfig: ((next: Config) => void) | undefined;
let config: () => Config;
install({
  mount(given) {
    const [read, write] = createSignal(given);
    config = read;
    setConfig = write;
    dispose = render(() => {
      // Accessors: the url follows the signal; the options are read (untracked) when polling starts.
      const poll = createPoll(() => config().poll.url, () => pollOptions(config().poll));
      const report = createFetchWithRetry(() => config().fetch.url, () => fetchOptions(config().fetch));
      const operation = createPollOperation<Report, Progress>(() => config().operation.url, () => operationOptions(config().operation));
      return [view('poll', poll), view('fetch', report), view('operation', operation, () => operationAttributes(operation))];
    }, document.getElementById('app')!);
  },
  setUrls(urls) {
    const now = config();
    setConfig!({
      poll: { ...now.poll, url: urls.poll ?? now.poll.url },
      fetch: { ...now.fetch, url: urls.fetch ?? now.fetch.url },
      operation: { ...now.operation, url: urls.operation ?? now.operation.url },
    });
  },
  unmount() {
    dispose?.();
    dispose = undefined;
  },
});
