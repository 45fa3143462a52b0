import { createApp, defineComponent, h, ref, watchEffect } from 'vue';
import { useFetchWithRetry, usePoll } from '../../../../../src/vue/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';

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

recordShown();
createApp(App).mount('#app');
