import { createApp, defineComponent, h, reactive, type App as VueApp } from 'vue';
import type { FetchView, OperationView, PollView } from '../../../../../src/observe/index.js';
import { useFetchWithRetry, usePoll, usePollOperation } from '../../../../../src/vue/index.js';
import { attributes, fetchOptions, install, operationAttributes, operationOptions, pollOptions, type Body, type Config, type Progress, type Report } from '../harness.js';

const view = (id: string, v: PollView<Body> | FetchView<Body> | OperationView<Report, Progress>, shown = attributes(v)) =>
  h('section', { 'data-testid': id, ...shown }, [
    h('button', { 'data-testid': `${id}-retry`, onClick: v.retry }, 'Retry'),
    h('button', { 'data-testid': `${id}-retry-now`, onClick: v.retryNow }, 'Try now'),
    h('button', { 'data-testid': `${id}-stop`, onClick: v.stop }, 'Stop'),
  ]);

let app: VueApp | undefined;
let config: Config | undefined;
install({
  mount(given) {
    const state = reactive(given);
    config = state;
    const App = defineComponent({
      setup() {
        // Getters: the url follows the reactive config; the options are read when polling starts.
        const poll = usePoll(() => state.poll.url, () => pollOptions(state.poll));
        const report = useFetchWithRetry(() => state.fetch.url, () => fetchOptions(state.fetch));
        const operation = usePollOperation<Report, Progress>(() => state.operation.url, () => operationOptions(state.operation));
        return () => h('div', [view('poll', poll), view('fetch', report), view('operation', operation, operationAttributes(operation))]);
      },
    });
    app = createApp(App);
    app.mount('#app');
  },
  setUrls(urls) {
    if (urls.poll !== undefined) config!.poll.url = urls.poll;
    if (urls.fetch !== undefined) config!.fetch.url = urls.fetch;
    if (urls.operation !== undefined) config!.operation.url = urls.operation;
  },
  unmount() {
    app?.unmount();
    app = undefined;
  },
});
