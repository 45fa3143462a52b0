import type { JobScript, Misbehaviour } from './job-model.js';

/**
 * The demo's scripted rough patch, for a 15 s job (ms from the job's start):
 * slow answers, a 503 outage with Retry-After, a 429, a burst of 500s, and
 * progress in 20% steps, so the data stays unchanged for seconds at a time.
 */
export const ROUGH_PATCH = {
  duration: 15_000,
  outcome: 'done',
  step: 20,
  misbehaviour: [
    { from: 1500, to: 3500, kind: 'slow', delay: 1500 },
    { from: 4000, to: 8000, kind: 'outage', retryAfter: 3 },
    { from: 8500, to: 9000, kind: 'rate-limit', retryAfter: 2 },
    { from: 10_000, to: 11_500, kind: 'errors' },
  ],
} as const satisfies JobScript;

/** The 503 window of a script, ms from the job's start. */
export const outageWindow = (script: { misbehaviour?: readonly Misbehaviour[] }): Misbehaviour | undefined =>
  script.misbehaviour?.find((m) => m.kind === 'outage');
