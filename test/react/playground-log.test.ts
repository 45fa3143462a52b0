import { describe, expect, it } from 'vitest';
import type { PollEvent } from '../../src/index.js';
import { appendEvent, type LogRow } from '../../playground/src/parts/request-log-model.js';

const run = (events: PollEvent[]): LogRow[] => events.reduce<LogRow[]>((rows, event, i) => appendEvent(rows, event, 1000 + i), []);

describe("the playground's request log", () => {
  it('writes one line per request: its answer, the wait chosen and why', () => {
    const rows = run([
      { type: 'request', attempt: 1, conditional: false },
      { type: 'response', status: 200, ms: 12 },
      { type: 'wait', delay: 1000, at: 0 },
      { type: 'request', attempt: 1, conditional: true },
      { type: 'response', status: 304, ms: 4 },
      { type: 'wait', delay: 1000, at: 0 },
      { type: 'request', attempt: 1, conditional: true },
      { type: 'response', status: 503, ms: 3 },
      { type: 'retry', attempt: 1, failures: 0, delay: 2200, at: 0, reason: 'status', status: 503, retryAfter: 2000 },
      { type: 'request', attempt: 1, conditional: true },
      { type: 'retry', attempt: 1, failures: 1, delay: 1500, at: 0, reason: 'network', retryAfter: null },
      { type: 'pause', reason: 'hidden' },
      { type: 'resume' },
      { type: 'request', attempt: 2, conditional: true },
    ]);
    expect(rows.map(({ n, kind, result, wait, why }) => [n, kind, result, wait, why])).toEqual([
      [1, 'ok', '200', 1000, 'interval'],
      [2, 'not-modified', '304', 1000, 'interval'],
      [3, 'failure', '503', 2200, 'Retry-After 2 s honoured'],
      [4, 'failure', 'network error', 1500, 'backoff after failure 1'],
      [0, 'paused', undefined, undefined, 'page hidden: nothing is sent'],
      [0, 'resumed', undefined, undefined, 'resumed: polling at once'],
      [5, 'pending', undefined, undefined, undefined],
    ]);
  });

  it('keeps the last 80 lines', () => {
    const events: PollEvent[] = Array.from({ length: 100 }, () => ({ type: 'request', attempt: 0, conditional: false }) as const);
    const rows = run(events);
    expect(rows).toHaveLength(80);
    expect(rows[0]!.n).toBe(21);
    expect(rows.at(-1)!.n).toBe(100);
  });
});
