import { useState } from 'react';
import { usePoll } from '../../../src/react/index.js';
import type { DemoApiClient, JobView } from '../demo-api.js';
import { describeError } from '../parts/format.js';
import { RequestLog } from '../parts/request-log.js';
import { appendEvent, type LogRow } from '../parts/request-log-model.js';

export interface JobCardProps {
  api: DemoApiClient;
  id: string;
  interval: number;
  onRemove(): void;
}

const isTerminal = (job: JobView): boolean => job.status === 'done' || job.status === 'failed';

/** One job, polled with usePoll: status, progress, failures in a row, the wait it is in (counting down), and every request. */
export function JobCard({ api, id, interval, onRemove }: JobCardProps) {
  const [rows, setRows] = useState<LogRow[]>([]);
  // Failures in a row, as the retry events count them (usePoll's `attempt` is the attempt number instead).
  const [failures, setFailures] = useState(0);
  const { status, data, error, secondsLeft, retry, stop } = usePoll<JobView>(api.jobUrl(id), {
    interval,
    retries: 6,
    isDone: isTerminal,
    // An inline callback on purpose: usePoll reads it from the latest render, so re-renders never restart polling.
    onEvent: (event) => {
      setRows((current) => appendEvent(current, event, Date.now()));
      if (event.type === 'retry') setFailures(event.failures);
      else if (event.type === 'response' && (event.status === 304 || (event.status >= 200 && event.status < 300))) setFailures(0);
    },
  });
  const progress = data?.progress ?? 0;
  const requests = rows.filter((row) => row.n > 0).length;
  const notModified = rows.filter((row) => row.kind === 'not-modified').length;
  const jobState = data?.status ?? 'unknown';
  const badge = status === 'polling' ? jobState : status === 'done' ? jobState : status;

  return (
    <article className="card job" data-testid="job-card" data-job-id={id} data-status={status} data-job-status={jobState}>
      <header className="job-head">
        <h3>Job #{id}</h3>
        <span className={`badge badge-${badge}`} data-testid="job-badge">
          {badge}
        </span>
        <button className="icon" title="Remove" onClick={onRemove} aria-label={`Remove job ${id}`}>
          ×
        </button>
      </header>
      <div className={`bar bar-${jobState}`} role="progressbar" aria-valuenow={progress} aria-valuemin={0} aria-valuemax={100}>
        <div style={{ width: `${progress}%` }} />
      </div>
      <dl className="facts">
        <div>
          <dt>progress</dt>
          <dd data-testid="job-progress">{progress}%</dd>
        </div>
        <div>
          <dt>requests sent</dt>
          <dd data-testid="job-requests">{requests}</dd>
        </div>
        <div>
          <dt title="304 Not Modified: the job had not changed, so no body was sent">304 unchanged</dt>
          <dd>{notModified}</dd>
        </div>
        <div>
          <dt title="failures counted in a row (reset by a success; answers paced by a Retry-After of a second or more do not count)">
            failures in a row
          </dt>
          <dd className={failures > 0 ? 'warn' : ''} data-testid="job-attempt">
            {failures}
          </dd>
        </div>
      </dl>
      <p className="job-line" data-testid="job-line">
        {status === 'polling' && secondsLeft !== undefined && <>Waiting: next try in {secondsLeft} s</>}
        {status === 'polling' && secondsLeft === undefined && <>Polling every {interval / 1000} s, one request at a time</>}
        {status === 'done' && <>Finished: polling stopped</>}
        {status === 'idle' && <>Stopped</>}
        {status === 'error' && <span className="error-text">{describeError(error)}</span>}
      </p>
      <div className="actions">
        {status === 'polling' && <button onClick={stop}>Cancel</button>}
        {(status === 'error' || status === 'idle') && (
          <button className="primary" onClick={retry} data-testid="job-retry">
            {status === 'error' ? 'Retry' : 'Resume'}
          </button>
        )}
      </div>
      <RequestLog rows={rows} />
    </article>
  );
}
