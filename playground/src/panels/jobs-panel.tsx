import { useEffect, useRef, useState } from 'react';
import type { DemoApiClient } from '../demo-api.js';
import type { Settings } from '../settings.js';
import { JobCard } from './job-card.js';

/** Several jobs side by side, each polled by its own usePoll. */
export function JobsPanel({ api, settings }: { api: DemoApiClient; settings: Settings }) {
  const [ids, setIds] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const started = useRef(false);

  const add = (duration: number, outcome: 'done' | 'failed' = 'done'): Promise<void> =>
    api.createJob({ duration, outcome }).then(
      ({ id }) => setIds((current) => [...current, id]),
      (error: unknown) => setProblem(String(error)),
    );

  useEffect(() => {
    // Creating jobs is not idempotent: once per page, even under StrictMode's double effects.
    if (started.current) return;
    started.current = true;
    void settings.jobs.reduce((chain, job) => chain.then(() => add(job.duration, job.outcome)), Promise.resolve());
  }, []);

  return (
    <section className="panel" aria-labelledby="jobs-title">
      <div className="panel-head">
        <div>
          <h2 id="jobs-title">Jobs, polled side by side</h2>
          <p className="hint">
            <code>usePoll(url, {'{ isDone, interval }'})</code>: the next request leaves only after the last answer;
            unchanged jobs cost an empty 304; failures back off; hidden tabs send nothing.
          </p>
        </div>
        <div className="actions">
          <button onClick={() => void add(10_000)}>+ 10 s job</button>
          <button onClick={() => void add(30_000)}>+ 30 s job</button>
          <button onClick={() => void add(12_000, 'failed')}>+ job that fails</button>
        </div>
      </div>
      {problem && <p className="error-text">Could not create a job: {problem}</p>}
      <div className="jobs">
        {ids.map((id) => (
          <JobCard key={id} api={api} id={id} interval={settings.interval} onRemove={() => setIds((current) => current.filter((x) => x !== id))} />
        ))}
      </div>
    </section>
  );
}
