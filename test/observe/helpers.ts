import type { ServerResponse } from 'node:http';
import { expect } from 'vitest';
import type { Clock } from '../../src/index.js';
import { sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';

/** A clock whose time moves only when the test says: timers fire in order of due time, none early. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing every timer due by then. */
  advance(ms: number): void;
  /** Timers armed and not yet fired or cleared. */
  pending(): number;
  /** Every delay asked for, in order. */
  delays: number[];
}

export function manualClock(start = 1_000_000): ManualClock {
  let now = start;
  let next = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const delays: number[] = [];
  return {
    now: () => now,
    random: () => 0,
    setTimeout(callback, ms) {
      delays.push(ms);
      const id = (next += 1);
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = end;
    },
    pending: () => timers.size,
    delays,
  };
}

/** Lets real I/O and promise callbacks run (a local server answering) until `condition` holds; fails after 5 s of real time. */
export async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  const giveUpAt = performance.now() + 5000;
  while (!condition() && performance.now() < giveUpAt) await new Promise<void>((resolve) => setImmediate(resolve));
  expect(condition(), `${what} never held`).toBe(true);
}

/** Lets real I/O run for `turns` event-loop turns, so anything about to reach a local server does. */
export async function settle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A settable visibility or online source that counts its listeners. */
export function switchable(initiallyOn = false) {
  let on = initiallyOn;
  const listeners = new Set<() => void>();
  return {
    set(value: boolean): void {
      on = value;
      for (const listener of [...listeners]) listener();
    },
    is: () => on,
    listeners: () => listeners.size,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/**
 * An operation server: `POST /reports` is answered 202 with an Operation-Location (`/ops/1`) and a Retry-After of
 * `startWait` s (none when undefined); the monitor answers `answers` in turn (the last again after them), and
 * `GET /reports/1` the result, `{ rows: 42 }`.
 */
export async function operationServer(startWait: number | undefined, answers: readonly unknown[]): Promise<TestServer> {
  let polls = 0;
  return startServer((_req, res: ServerResponse, seen: SeenRequest) => {
    const line = `${seen.method} ${seen.path}`;
    if (line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1', ...(startWait !== undefined && { 'retry-after': String(startWait) }) });
    if (line === 'GET /ops/1') return sendJson(res, 200, answers[Math.min(polls++, answers.length - 1)]);
    if (line === 'GET /reports/1') return sendJson(res, 200, { rows: 42 });
    return sendJson(res, 404, {});
  });
}
