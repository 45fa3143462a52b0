import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useFetchWithRetry, usePoll, usePollOperation } from '../../../../../src/react/index.js';
import { attributes, pollOptions, recordShown, savedMonitor, startOptions, startUrl, type Job } from '../app.js';
import { operationAttributes, operationHook, operationOptions, operationUrl, recordTrail, type Progress, type Report } from '../operation-app.js';

function App() {
  const [monitor, setMonitor] = useState(savedMonitor);
  const start = useFetchWithRetry<string>(startUrl(monitor), startOptions());
  useEffect(() => {
    if (start.status === 'done') setMonitor(start.data);
  }, [start.status, start.data]);
  const job = usePoll<Job>(monitor, pollOptions());
  return <section data-testid="job" {...attributes(job, start)} />;
}

function OperationApp() {
  const report = usePollOperation<Report, Progress>(operationUrl, operationOptions());
  return <section data-testid="job" {...operationAttributes(report)} />;
}

recordShown();
recordTrail();
// StrictMode on purpose: its mount, unmount and remount must neither start twice nor lose the checkpoint.
createRoot(document.getElementById('app')!).render(<StrictMode>{operationHook ? <OperationApp /> : <App />}</StrictMode>);
