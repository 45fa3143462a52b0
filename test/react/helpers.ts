import { act } from '@testing-library/react';
import type { ServerResponse } from 'node:http';
import { expect, vi } from 'vitest';
import { sendJson, type SeenRequest } from '../helpers/server.js';

/** One turn of the real event loop (setImmediate is never faked here), inside act(). */
const ioTurn = (): Promise<void> => act(() => new Promise<void>((resolve) => setImmediate(resolve)));

/**
 * Lets real I/O run (a local server answering) until `condition` holds,
 * without advancing fake time. Gives up after `limitMs` of real time
 * (performance.now() is never faked here), however busy the machine is.
 */
export async function until(condition: () => boolean, limitMs = 5000): Promise<void> {
  const giveUpAt = performance.now() + limitMs;
  while (!condition() && performance.now() < giveUpAt) await ioTurn();
  expect(condition(), 'condition never held').toBe(true);
}

/** Lets real I/O run for `turns` event-loop turns, so anything about to arrive at a local server arrives. */
export async function settle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i += 1) await ioTurn();
}

/** Advances fake time by `ms` inside act(), running the timers due and their promise callbacks. */
export async function advance(ms: number): Promise<void> {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

/** Timers and Date are faked; setImmediate, I/O and microtasks stay real, so a local server still answers. */
export const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'Date'] };

export interface Job {
  status: 'queued' | 'running' | 'done' | 'failed';
  progress?: number;
}

export const isDone = (job: Job): boolean => job.status === 'done' || job.status === 'failed';

/** A scripted answer: a status with a JSON body, optionally headers. */
export const answer =
  (status: number, body: unknown = {}, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);

/** A request the server never answers; records when the client gave up on it. */
export function hold(aborted: SeenRequest[]): (res: ServerResponse, seen: SeenRequest) => void {
  return (res, seen) => {
    res.on('close', () => {
      if (!res.writableEnded) aborted.push(seen);
    });
  };
}

/** The paths the server saw, in order. */
export const paths = (requests: SeenRequest[]): string[] => requests.map((r) => `${r.method} ${r.path}`);
