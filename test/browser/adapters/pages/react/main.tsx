import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { FetchView, OperationView, PollView } from '../../../../../src/observe/index.js';
import { useFetchWithRetry, usePoll, usePollOperation } from '../../../../../src/react/index.js';
import { attributes, fetchOptions, install, operationAttributes, operationOptions, pollOptions, type Body, type Config, type Progress, type Report } from '../harness.js';

function View({ id, view, shown = attributes(view) }: { id: string; view: PollView<Body> | FetchView<Body> | OperationView<Report, Progress>; shown?: Record<string, string> }) {
  return (
    <section data-testid={id} {...shown}>
      <button data-testid={`${id}-retry`} onClick={view.retry}>Retry</button>
      <button data-testid={`${id}-retry-now`} onClick={view.retryNow}>Try now</button>
      <button data-testid={`${id}-stop`} onClick={view.stop}>Stop</button>
    </section>
  );
}

function App({ config }: { config: Config }) {
  const poll = usePoll(config.poll.url, pollOptions(config.poll));
  const report = useFetchWithRetry(config.fetch.url, fetchOptions(config.fetch));
  const operation = usePollOperation<Report, Progress>(config.operation.url, operationOptions(config.operation));
  return (
    <>
      <View id="poll" view={poll} />
      <View id="fetch" view={report} />
      <View id="operation" view={operation} shown={operationAttributes(operation)} />
    </>
  );
}

let root: Root | undefined;
let current: Config | undefined;
// StrictMode on purpose: its mount, unmount and remount must still send one request.
const render = (): void => root!.render(<StrictMode><App config={current!} /></StrictMode>);
install({
  mount(config) {
    current = config;
    root = createRoot(document.getElementById('app')!);
    render();
  },
  setUrls(urls) {
    const { poll, fetch, operation } = current!;
    current = { poll: { ...poll, url: urls.poll ?? poll.url }, fetch: { ...fetch, url: urls.fetch ?? fetch.url }, operation: { ...operation, url: urls.operation ?? operation.url } };
    render();
  },
  unmount() {
    root?.unmount();
    root = undefined;
  },
});
