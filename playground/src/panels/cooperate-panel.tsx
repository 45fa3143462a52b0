import { useEffect, useRef, useState } from 'react';
import { share, shareTabs } from '../../../src/cooperate/index.js';
import { poll } from '../../../src/index.js';
import type { DemoApiClient, JobView } from '../demo-api.js';
import type { Settings } from '../settings.js';

/** How the pollers of this panel cooperate. */
type Mode = 'independent' | 'share' | 'tabs';

/** Pollers started together on one job. */
const POLLERS = 8;

/** Where the tabs of this page tell each other which job they watch, so that a second tab's Start follows the first's job. */
const CHANNEL = 'pollite-playground-cooperate';
/** How long Start waits for another tab to name its job, ms, before it creates one. */
const ASK_MS = 300;

/** The tabs' few words: "which job do you watch?", and the answer. */
type TabMessage = { type: 'ask' } | { type: 'job'; job: string };

/** Asks the other tabs of this page for the job they watch; resolves with the first answer, or undefined when none comes. */
function askOtherTabs(channel: BroadcastChannel): Promise<string | undefined> {
  return new Promise((resolve) => {
    const done = (job: string | undefined): void => {
      clearTimeout(timer);
      channel.removeEventListener('message', hear);
      resolve(job);
    };
    const hear = (event: MessageEvent<TabMessage>): void => {
      if (event.data?.type === 'job') done(event.data.job);
    };
    const timer = setTimeout(() => done(undefined), ASK_MS);
    channel.addEventListener('message', hear);
    channel.postMessage({ type: 'ask' } satisfies TabMessage);
  });
}

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
  /** True when Start took the job another tab of this page was watching. */
  followed: boolean;
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
  // The job this tab's pollers watch until they have all finished: what it tells another tab that asks.
  const watching = useRef<string | undefined>(undefined);
  const channel = useRef<BroadcastChannel | undefined>(undefined);
  useEffect(() => {
    if (typeof BroadcastChannel !== 'function') return undefined;
    const tabs = new BroadcastChannel(CHANNEL);
    tabs.addEventListener('message', (event: MessageEvent<TabMessage>) => {
      if (event.data?.type === 'ask' && watching.current) tabs.postMessage({ type: 'job', job: watching.current } satisfies TabMessage);
    });
    channel.current = tabs;
    return () => {
      channel.current = undefined;
      tabs.close();
    };
  }, []);

  const start = async (): Promise<void> => {
    stop.current?.abort();
    const controller = new AbortController();
    stop.current = controller;
    setProblem(undefined);
    watching.current = undefined;
    // The job another tab of this page watches, if one does (open the page twice, press Start in each: the second
    // follows the first); else a new one. `?cooperateJob=ID` names one outright (the browser tests script their jobs).
    const given = new URLSearchParams(location.search).get('cooperateJob');
    const followed = given ? undefined : channel.current && (await askOtherTabs(channel.current));
    let job: { id: string };
    try {
      job = given ? { id: given } : followed ? { id: followed } : await api.createJob({ duration: 15_000, outcome: 'done' });
    } catch (error) {
      setProblem(String(error));
      return;
    }
    if (controller.signal.aborted) return; // a second click on Start while this one asked
    watching.current = job.id;
    const zeros = (): number[] => Array<number>(POLLERS).fill(0);
    const current: Run = { mode, job: job.id, sent: 0, updates: zeros(), heard: zeros(), finished: 0, cooldowns: 0, followed: followed !== undefined };
    const show = (): void => setRun({ ...current, updates: [...current.updates], heard: [...current.heard] });
    const counted: typeof fetch = (input, init) => {
      current.sent += 1;
      show();
      return fetch(input, init);
    };
    show();
    for (let i = 0; i < POLLERS; i += 1) {
      poll<JobView>(api.jobUrl(job.id), {
        // `counted` only counts: it sends every tab's request alike, which the key says (a fetch of its own is otherwise not shared across tabs).
        use: mode === 'independent' ? [] : mode === 'share' ? [share()] : [shareTabs({ key: 'playground: counted fetch' })],
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
          if (event.type === 'share' && event.role !== 'local') current.role = event.role;
          show();
        },
      }).then(
        () => {
          current.finished += 1;
          if (current.finished === POLLERS && watching.current === job.id) watching.current = undefined;
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
            <code>shareTabs()</code> one tab polls for every tab of this page: open the page twice and press Start in each, and
            the second tab follows the first one's job. Turn on an outage
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
          data-followed={run.followed}
        >
          Job <code>{run.job}</code>
          {run.followed ? ', the job another tab watches' : ''} ({MODES.find(([value]) => value === run.mode)![1]}): <strong>{run.sent}</strong> requests sent by
          this page for {rounds} updates each; independent pollers would have sent {run.sent > 0 ? '' : 'at least '}
          {alone}
          {alone > run.sent ? `, ${alone - run.sent} saved` : ''}. Finished: {run.finished}/{POLLERS}. Cooldown waits: {run.cooldowns}.
          {run.role && ` This tab is the ${run.role}.`}
        </p>
      )}
    </section>
  );
}
