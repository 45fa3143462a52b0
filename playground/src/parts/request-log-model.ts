import type { PollEvent } from '../../../src/index.js';
import { formatMs } from './format.js';

/** One line of a job's request log: a request and what the poller decided after it, or a pause. */
export interface LogRow {
  /** Request number (1 for the first); 0 for pause and resume lines. */
  n: number;
  kind: 'pending' | 'ok' | 'not-modified' | 'failure' | 'paused' | 'resumed' | 'cooldown';
  /** Epoch ms the request left, or the pause began. */
  at: number;
  conditional?: boolean;
  /** "200", "304", "503", "network error", "timed out". */
  result?: string;
  /** ms the answer took. */
  ms?: number;
  /** The wait chosen after it, ms. */
  wait?: number;
  /** Why that wait. */
  why?: string;
  /** `why`, short enough for the log's last column. */
  note?: string;
  /** How many times this line happened in a row (a cooldown asked again and again): shown once, with ×count. */
  count?: number;
}

const KEEP = 80;

const PAUSED: Record<string, string> = {
  hidden: 'page hidden: nothing is sent',
  offline: 'offline: nothing is sent',
  blurred: 'window lost focus: nothing is sent',
};

const WOKEN: Record<string, string> = {
  visible: 'page visible again: polling at once',
  online: 'back online: polling at once',
  focus: 'window focused: polling at once',
};

const lastRequest = (rows: LogRow[]): LogRow | undefined => {
  for (let i = rows.length - 1; i >= 0; i -= 1) if (rows[i]!.n > 0) return rows[i];
  return undefined;
};

const patchLast = (rows: LogRow[], patch: Partial<LogRow>): LogRow[] => {
  const target = lastRequest(rows);
  return target ? rows.map((row) => (row === target ? { ...row, ...patch } : row)) : rows;
};

/**
 * Adds a line that is not a request (a pause, a cooldown...). The same kind of line again, with no
 * request in between, does not add a row: the last one counts it (×2, ×3...), keeping the longest
 * wait, so a loop that is held again and again for a few ms does not fill the log.
 */
function appendNote(rows: LogRow[], row: LogRow): LogRow[] {
  const last = rows.at(-1);
  if (last && last.n === 0 && last.kind === row.kind && (row.kind === 'cooldown' || last.why === row.why)) {
    const longer = (row.wait ?? 0) > (last.wait ?? 0) ? { wait: row.wait, why: row.why } : {};
    return [...rows.slice(0, -1), { ...last, ...longer, count: (last.count ?? 1) + 1 }];
  }
  return [...rows, row].slice(-KEEP);
}

/** Folds one `onEvent` event into the log. */
export function appendEvent(rows: LogRow[], event: PollEvent, now: number): LogRow[] {
  switch (event.type) {
    case 'request': {
      const n = (lastRequest(rows)?.n ?? 0) + 1;
      return [...rows, { n, kind: 'pending' as const, at: now, conditional: event.conditional }].slice(-KEEP);
    }
    case 'response': {
      const kind = event.status === 304 ? 'not-modified' : event.status >= 200 && event.status < 300 ? 'ok' : 'failure';
      return patchLast(rows, { kind, result: String(event.status), ms: event.ms });
    }
    case 'wait':
      return patchLast(rows, { wait: event.delay, why: 'interval', note: 'interval' });
    case 'retry': {
      const why =
        event.retryAfter !== null
          ? `Retry-After ${formatMs(event.retryAfter)} honoured`
          : `backoff after failure ${event.attempt}`;
      const note = event.retryAfter !== null ? `Retry-After ${formatMs(event.retryAfter)}` : `backoff #${event.attempt}`;
      const noAnswer = event.reason === 'network' ? 'network error' : event.reason === 'timeout' ? 'timed out' : undefined;
      return patchLast(rows, { kind: 'failure', wait: event.delay, why, note, ...(noAnswer ? { result: noAnswer } : {}) });
    }
    case 'pause':
      return appendNote(rows, { n: 0, kind: 'paused', at: now, why: PAUSED[event.reason] ?? 'paused' });
    case 'resume':
      return appendNote(rows, { n: 0, kind: 'resumed', at: now, why: 'resumed: polling at once' });
    case 'wake':
      return appendNote(rows, { n: 0, kind: 'resumed', at: now, why: WOKEN[event.reason] ?? 'woken' });
    case 'cooldown':
      return appendNote(rows, {
        n: 0,
        kind: 'cooldown',
        at: now,
        wait: event.delay,
        why: `cooldown ${formatMs(event.delay)}: another request to ${event.origin} was told to wait (Retry-After)`,
      });
    default:
      return rows;
  }
}
