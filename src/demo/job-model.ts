/** One phase of a job's scripted rough patch, relative to the job's start (ms). */
export interface Misbehaviour {
  from: number;
  to: number;
  /**
   * - `outage`: 503, with `Retry-After: retryAfter` seconds when given
   * - `rate-limit`: 429 with `Retry-After: retryAfter` (default 1) seconds
   * - `errors`: 500 without Retry-After
   * - `slow`: answers after `delay` ms
   */
  kind: 'outage' | 'rate-limit' | 'errors' | 'slow';
  retryAfter?: number;
  delay?: number;
}

/** How a demo job behaves over time. */
export interface JobScript {
  /** Time from creation to a terminal state, ms. @default 10000 */
  duration?: number;
  /** Terminal state. @default 'done' */
  outcome?: 'done' | 'failed';
  /** Progress moves in steps of this many percent, so data stays unchanged between steps (304s). @default 10 */
  step?: number;
  /** Scripted misbehaviour windows. */
  misbehaviour?: Misbehaviour[];
}

/** The body a client sees. */
export interface JobView {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
}

/** A job whose state is a pure function of time. */
export interface Job {
  id: string;
  createdAt: number;
  script: Required<Omit<JobScript, 'misbehaviour'>> & { misbehaviour: Misbehaviour[] };
}

/** The job's state at `now`: queued for the first 5%, then running in steps, then terminal. */
export function viewJob(job: Job, now: number): JobView {
  const { duration, outcome, step } = job.script;
  const elapsed = now - job.createdAt;
  if (elapsed >= duration) return { id: job.id, status: outcome, progress: 100 };
  if (elapsed < duration * 0.05) return { id: job.id, status: 'queued', progress: 0 };
  const raw = (elapsed / duration) * 100;
  return { id: job.id, status: 'running', progress: Math.min(99, Math.floor(raw / step) * step) };
}

/** The misbehaviour in force for `job` at `now`, if any. */
export const activeMisbehaviour = (job: Job | undefined, now: number): Misbehaviour | undefined => {
  if (!job) return undefined;
  const elapsed = now - job.createdAt;
  return job.script.misbehaviour.find((m) => elapsed >= m.from && elapsed < m.to);
};
