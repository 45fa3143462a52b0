import { createApp, defineComponent, h, ref, watchEffect } from 'vue';
import { useFetchWithRetry, usePoll, usePollOperation } from '../../../../../src/vue/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';
import { operationAttributes, operationHook, operationOptions, operationUrl, recordTrail, type Progress, type Report } from '../operation-app.js';

const App = defineComponent({
  setup() {
    const monitor = ref(savedMonitor());
    const start = useFetchWithRetry<string>(() => startUrl(monitor.value), startOptions);
    watchEffect(() => {
      if (start.status === 'done') monitor.value = start.data;
    });
    const job = usePoll<Job>(() => monitor.value, pollOptions);
    return () => h('section', { 'data-testid': 'job', ...attributes(job, start) });
  },
});

const OperationApp = defineComponent({
  setup() {
    const report = usePollOperation<Report, Progress>(operationUrl, operationOptions);
    return () => h('section', { 'data-testid': 'job', ...operationAttributes(report) });
  },
});

recordShown();
recordTrail();
createApp(operationHook ? OperationApp : App).mount('#app');
