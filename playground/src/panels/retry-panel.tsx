import { useEffect, useRef, useState } from 'react';
import { exponential, isHttpError } from '../../../src/index.js';
import { useFetchWithRetry } from '../../../src/react/index.js';
import type { DemoApiClient, JobView } from '../demo-api.js';
import { describeError, formatMs } from '../parts/format.js';
import type { Settings } from '../settings.js';

const MISSING_JOB = '999999';

/** A failure another try would only repeat: a 4xx other than 408 and 429 (fetchWithRetry retries those). */
const notRetried = (error: unknown): error is { status: number } =>
  isHttpError(error) && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;

/** Why the same request would fail again, in a sentence, for the statuses a user meets here. */
const whyNoRetry = (status: number): string =>
  status === 404
    ? 'There is no such job: asking again would get the same 404, so useFetchWithRetry does not retry it, and there is nothing to retry.'
    : `HTTP ${status} says the request itself is wrong: another try would get the same answer, so it is not retried.`;

/** One request that must get through: useFetchWithRetry with "attempt 2 of 4", the next try, and Retry / Try now. */
export function RetryPanel({ api, settings }: { api: DemoApiClient; settings: Settings }) {
  const [reportId, setReportId] = useState<string | undefined>();
  const [target, setTarget] = useState<string | null>(null);
  const [log, setLog] = useState<string[]>([]);
  const created = useRef(false);

  useEffect(() => {
    // A long job whose snapshot this panel fetches; created once, even under StrictMode.
    if (created.current) return;
    created.current = true;
    api.createJob({ duration: 3_600_000 }).then(({ id }) => setReportId(id), () => undefined);
  }, [api]);

  const { data, loading, error, attempt, limit, nextAttemptAt, secondsLeft, retry, retryNow, stop } = useFetchWithRetry<JobView>(target, {
    retries: 3,
    backoff: exponential({ base: settings.backoffBase, cap: 10_000, jitter: 0.25 }),
    onRetry: ({ error: failure, attempt: n, delay }) =>
      setLog((lines) => [...lines, `attempt ${n} failed (${describeError(failure)}): retry ${n} in ${formatMs(delay)}`].slice(-8)),
  });

  // Every new try starts a clean log: the failures listed are always this try's.
  const again = (): void => {
    setLog([]);
    retry();
  };
  const fetchJob = (id: string): void => {
    const url = api.jobUrl(id);
    if (url === target) again();
    else {
      setLog([]);
      setTarget(url);
    }
  };

  const state = loading ? 'loading' : error ? 'error' : data ? 'ready' : 'idle';
  return (
    <section className="panel" aria-labelledby="retry-title" data-testid="retry-panel" data-state={state}>
      <div className="panel-head">
        <div>
          <h2 id="retry-title">One request that must get through</h2>
          <p className="hint">
            <code>useFetchWithRetry(url, {'{ retries: 3 }'})</code>: network errors, 408, 429 and 5xx are retried with backoff
            (Retry-After wins); 4xx fail at once. Turn on an outage, then fetch.
          </p>
        </div>
        <div className="actions">
          <button className="primary" disabled={!reportId || loading} onClick={() => reportId && fetchJob(reportId)} data-testid="retry-fetch">
            Fetch job snapshot
          </button>
          <button disabled={loading} onClick={() => fetchJob(MISSING_JOB)} data-testid="retry-fetch-missing">
            Fetch a missing job (404)
          </button>
        </div>
      </div>
      <div className={`retry-status retry-${state}`} data-testid="retry-status">
        {state === 'idle' && <p>Nothing fetched yet.</p>}
        {state === 'loading' && (
          <>
            <p className="big" data-testid="retry-attempt">
              {nextAttemptAt === undefined ? `Attempt ${attempt} of ${limit}…` : `Attempt ${attempt} of ${limit} failed`}
            </p>
            {secondsLeft !== undefined && <p data-testid="retry-countdown">Next try in {secondsLeft} s</p>}
            <div className="actions">
              <button className="primary" disabled={nextAttemptAt === undefined} onClick={retryNow} data-testid="retry-now">
                Try now
              </button>
              <button onClick={stop}>Cancel</button>
            </div>
          </>
        )}
        {state === 'error' && notRetried(error) && (
          <>
            <p className="big error-text" data-testid="retry-error">
              HTTP {error.status}: not retried
            </p>
            <p className="hint" data-testid="retry-why">
              {whyNoRetry(error.status)}
            </p>
          </>
        )}
        {state === 'error' && !notRetried(error) && (
          <>
            <p className="big error-text" data-testid="retry-error">
              Gave up after {attempt} of {limit} attempts
            </p>
            <p className="hint">{describeError(error)}</p>
            <div className="actions">
              <button className="primary" onClick={again} data-testid="retry-button">
                Retry
              </button>
            </div>
          </>
        )}
        {state === 'ready' && data && (
          <p className="big ok-text" data-testid="retry-data">
            Job #{data.id} is {data.status} ({data.progress}%){attempt > 1 ? `, after ${attempt} attempts` : ''}
          </p>
        )}
        {log.length > 0 && (
          <ul className="retry-log" data-testid="retry-log">
            {log.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
