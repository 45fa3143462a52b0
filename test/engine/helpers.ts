import { runAttempts } from '../../src/engine/run-attempts.js';
import type { AttemptSpec, Failed, Outcome } from '../../src/engine/attempt-spec.js';
import type { PollEvent } from '../../src/engine/events.js';
import type { LoopHooks } from '../../src/engine/hooks.js';
import type { RetryPolicy } from '../../src/policy/retry-decision.js';
import { VirtualClock } from '../../src/testing/index.js';

// A scripted surface for the one attempt loop: each attempt answers with the next step of a script
// (a value, a failed status with its headers, a thrown error), on a virtual clock that fires every
// timer at once (`auto`), so a test asserts the exact waits and events the engine chose.

/** One attempt's answer: a success, a retried status (with headers), or an error thrown by the attempt. */
export type Step =
  | { ok: unknown; status?: number; headers?: Record<string, string> }
  | { fail: number; headers?: Record<string, string> }
  | { network: unknown }
  | { throws: unknown };

export const ok = (value: unknown, status = 200, headers: Record<string, string> = {}): Step => ({ ok: value, status, headers });
export const fail = (status: number, headers: Record<string, string> = {}): Step => ({ fail: status, headers });
export const network = (error: unknown = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } })): Step => ({ network: error });

export const POLICY: RetryPolicy = {
  retries: 3,
  backoff: (attempt) => 100 * attempt,
  maxRetryAfter: 300_000,
  interval: 0,
  countPaced: true,
  isRetryableStatus: (status) => status === 429 || status >= 500,
};

export interface Harness<R> {
  clock: VirtualClock;
  events: PollEvent[];
  /** The attempts sent, in order (1-based numbers, as the loop hands them). */
  sent: number[];
  /** What `retrying` was told: [attempt, delay, paced]. */
  retried: Array<[number, number, boolean]>;
  /** What `givingUp` was told: [attempt, reason]. */
  gaveUp: Array<[number, string]>;
  /** The failures `fail` was called with: [reason, failures]. */
  failedWith: Array<[string, number]>;
  run: Promise<R>;
}

/** Runs the engine over `script` (the last step repeats) with `spec` on top of a scripted surface. */
export function runScript<R = unknown>(
  script: Step[],
  spec: Partial<AttemptSpec<unknown, R>> = {},
  clock = new VirtualClock({ start: 1_000_000, random: 0.5, recordDelays: true, auto: true }),
): Harness<R> {
  const events: PollEvent[] = [];
  const sent: number[] = [];
  const retried: Array<[number, number, boolean]> = [];
  const gaveUp: Array<[number, string]> = [];
  const failedWith: Array<[string, number]> = [];
  let index = 0;
  const next = (): Step => script[Math.min(index++, script.length - 1)]!;
  const full: AttemptSpec<unknown, R> = {
    env: clock.env(),
    policy: POLICY,
    hooks: [],
    signals: [],
    timeout: undefined,
    timedOut: 'Timed out',
    attemptTimeout: undefined,
    attemptTimedOut: 'Attempt timed out',
    emit: (event) => events.push(event),
    sending: (attempt) => sent.push(attempt),
    async send(): Promise<Outcome<unknown>> {
      const step = next();
      if ('throws' in step) throw step.throws;
      if ('network' in step) throw step.network;
      if ('fail' in step) {
        const headers = new Headers(step.headers);
        return { failure: { type: 'status', status: step.fail, headers }, error: new Error(`status ${step.fail}`), status: step.fail, headers };
      }
      return { value: step.ok, status: step.status ?? 200, headers: new Headers(step.headers) };
    },
    thrown(error, timedOut): Failed<unknown> {
      return { failure: timedOut ? { type: 'timeout', error } : { type: 'network', error }, error, status: 0, headers: new Headers(), timedOut };
    },
    done: () => true,
    fail(failed, reason, failures) {
      failedWith.push([reason, failures]);
      throw failed.error;
    },
    retrying: (_failed, attempt, delay, paced) => retried.push([attempt, delay, paced]),
    givingUp: (_error, attempt, reason) => gaveUp.push([attempt, reason]),
    ...spec,
  };
  return { clock, events, sent, retried, gaveUp, failedWith, run: runAttempts(full) };
}

export type { LoopHooks };
