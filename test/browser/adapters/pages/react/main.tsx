import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { FetchView, PollView } from '../../../../../src/observe/index.js';
import { useFetchWithRetry, usePoll } from '../../../../../src/react/index.js';
import { attributes, fetchOptions, install, pollOptions, type Body, type Config } from '../harness.js';

function View({ id, view }: { id: string; view: PollView<Body> | FetchView<Body> }) {
  return (
    <section data-testid={id} {...attributes(view)}>
      <button data-testid={`${id}-retry`} onClick={view.retry}>Retry</button>
      <button data-testid={`${id}-retry-now`} onClick={view.retryNow}>Try now</button>
      <button data-testid={`${id}-stop`} onClick={view.stop}>Stop</button>
    </section>
  );
}

function App({ config }: { config: Config }) {
  const poll = usePoll(config.poll.url, pollOptions(config.poll));
  const report = useFetchWithRetry(config.fetch.url, fetchOptions(config.fetch));
  return (
    <>
      <View id="poll" view={poll} />
      <View id="fetch" view={report} />
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
    current = { poll: { ...current!.poll, url: urls.poll ?? current!.poll.url }, fetch: { ...current!.fetch, url: urls.fetch ?? current!.fetch.url } };
    render();
  },
  unmount() {
    root?.unmount();
    root = undefined;
  },
});
