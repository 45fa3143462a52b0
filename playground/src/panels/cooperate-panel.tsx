import { useEffect, useRef, useState } from 'react';
import { share, shareTabs } from '../../../src/cooperate/index.js';
import { poll } from '../../../src/index.js';
import type { DemoApiClient, JobView } from '../demo-api.js';
import type { Settings } from '../settings.js';

/** How the pollers of this panel cooperate. */
type Mode = 'independent' | 'share' | 'tabs';

/** Pollers started together on one job. */
const POLLERS = 8;

interface Run {
  mode: Mode;
  job: string;
  /** Requests that really left this page for the job. */
  sent: number;
  /** Updates each poller received (the same for all when they share). */
  updates: number[];
  /** Requests each poller saw go out for it: its own, or its shared loop's. */
  heard: number[];
  finished: number;
  /** Waits imposed by an origin cooldown (requests held back during an outage). */
  cooldowns: number;
  /** With shareTabs(): whether this tab polls for all, or listens. */
  role?: 'leader' | 'follower';
}

const isTerminal = (job: JobView): boolean => job.status === 'done' || job.status === 'failed';

const MODES: Array<[Mode, string]> = [
  ['independent', 'independent'],
  ['share', 'use: [share()]'],
  ['tabs', 'use: [shareTabs()]'],
];

/**
 * Cooperating pollers: several pollers watch one job, independently or
 * sharing one request loop (in this page, or across tabs), and the panel
 * counts the requests that really left against what independent pollers
 * would have sent. Origin cooldowns show up when the API has an outage
 * with Retry-After (see the controls).
 */
export function CooperatePanel({ api, settings }: { api: DemoApiClient; settings: Settings }) {
  const [mode, setMode] = useState<Mode>('share');
  const [run, setRun] = useState<Run | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const stop = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => stop.current?.abort(), []);

  const start = async (): Promise<void> => {
    stop.current?.abort();
    const controller = new AbortController();
    stop.current = controller;
    setProblem(undefined);
    // Browser tests: `?cooperateJob=ID` makes Start watch that existing job instead of a new one, so two tabs can share it.
    const given = new URLSearchParams(location.search).get('cooperateJob');
    let job: { id: string };
    try {
      job = given ? { id: given } : await api.createJob({ duration: 15_000, outcome: 'done' });
    } catch (error) {
      setProblem(String(error));
      return;
    }
    const zeros = (): number[] => Array<number>(POLLERS).fill(0);
    const current: Run = { mode, job: job.id, sent: 0, updates: zeros(), heard: zeros(), finished: 0, cooldowns: 0 };
    const show = (): void => setRun({ ...current, updates: [...current.updates], heard: [...current.heard] });
    const counted: typeof fetch = (input, init) => {
      current.sent += 1;
      show();
      return fetch(input, init);
    };
    show();
    for (let i = 0; i < POLLERS; i += 1) {
      poll<JobView>(api.jobUrl(job.id), {
        use: mode === 'independent' ? [] : mode === 'share' ? [share()] : [shareTabs()],
        interval: settings.interval,
        isDone: isTerminal,
        fetch: counted,
        signal: controller.signal,
        onUpdate: () => {
          current.updates[i]! += 1;
          show();
        },
        onEvent: (event) => {
          if (event.type === 'request') current.heard[i]! += 1;
          // With a shared loop every caller hears each event: count the rest once.
          if (i !== 0) return;
          if (event.type === 'cooldown') current.cooldowns += 1;
          if (event.type === 'share') current.role = event.role;
          show();
        },
      }).then(
        () => {
          current.finished += 1;
          show();
        },
        () => undefined,
      );
    }
  };

  // What pollers of their own would have sent: every request each one saw (a follower tab sees only updates).
  const alone = run ? run.heard.reduce((sum, heard, i) => sum + Math.max(heard, run.updates[i]!), 0) : 0;
  const rounds = run ? Math.max(...run.updates) : 0;
  return (
    <section className="panel" aria-labelledby="cooperate-title" data-testid="cooperate-panel">
      <div className="panel-head">
        <div>
          <h2 id="cooperate-title">Pollers that cooperate</h2>
          <p className="hint">
            {POLLERS} pollers watch one job. With <code>share()</code> they share one request loop; with{' '}
            <code>shareTabs()</code> one tab polls for every tab of this page (open it twice). Turn on an outage
            with Retry-After: the first 503 quiets every poller of the origin (origin cooldown).
          </p>
        </div>
        <div className="actions" role="group" aria-label="cooperation mode">
          {MODES.map(([value, label]) => (
            <button
              key={value}
              className={mode === value ? 'primary' : undefined}
              aria-pressed={mode === value}
              data-testid={`cooperate-mode-${value}`}
              onClick={() => setMode(value)}
            >
              {label}
            </button>
          ))}
          <button data-testid="cooperate-start" onClick={() => void start()}>
            Start {POLLERS} pollers
          </button>
        </div>
      </div>
      {problem && <p className="error-text">Could not create a job: {problem}</p>}
      {run && (
        <p
          data-testid="cooperate-summary"
          data-job={run.job}
          data-mode={run.mode}
          data-sent={run.sent}
          data-updates={run.updates.join(' ')}
          data-finished={run.finished}
          data-role={run.role}
        >
          Job <code>{run.job}</code> ({MODES.find(([value]) => value === run.mode)![1]}): <strong>{run.sent}</strong> requests sent by
          this page for {rounds} updates each; independent pollers would have sent {run.sent > 0 ? '' : 'at least '}
          {alone}
          {alone > run.sent ? `, ${alone - run.sent} saved` : ''}. Finished: {run.finished}/{POLLERS}. Cooldown waits: {run.cooldowns}.
          {run.role && ` This tab is the ${run.role}.`}
        </p>
      )}
    </section>
  );
}
