import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useFetchWithRetry, usePoll } from '../../../../../src/react/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';

function App() {
  const [monitor, setMonitor] = useState(savedMonitor);
  const start = useFetchWithRetry<string>(startUrl(monitor), startOptions());
  useEffect(() => {
    if (start.status === 'done') setMonitor(start.data);
  }, [start.status, start.data]);
  const job = usePoll<Job>(monitor, pollOptions());
  return <section data-testid="job" {...attributes(job, start)} />;
}

recordShown();
// StrictMode on purpose: its mount, unmount and remount must neither start twice nor lose the checkpoint.
createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
