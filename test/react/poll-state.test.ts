import { describe, expect, it } from 'vitest';
import type { PollEvent } from '../../src/index.js';
import { applyPollEvent, IDLE, type PollState } from '../../src/react/poll-state.js';

const polling: PollState<unknown> = { ...IDLE, status: 'polling' };
const fold = (events: PollEvent[]): PollState<unknown> => events.reduce(applyPollEvent, polling);

describe('applyPollEvent: attempt and nextAttemptAt from the poller events', () => {
  it('follows failures, Retry-After pacing and recovery', () => {
    const states: Array<[number, number | undefined]> = [];
    let state = polling;
    const events: PollEvent[] = [
      { type: 'request', attempt: 1, conditional: false },
      { type: 'response', status: 503, ms: 5 },
      { type: 'retry', attempt: 1, failures: 1, delay: 3000, at: 13_000, reason: 'status', status: 503, retryAfter: null },
      { type: 'request', attempt: 2, conditional: false },
      { type: 'retry', attempt: 2, failures: 2, delay: 5000, at: 20_000, reason: 'network', retryAfter: null },
      { type: 'request', attempt: 3, conditional: false },
      { type: 'response', status: 429, ms: 5 },
      { type: 'retry', attempt: 3, failures: 2, delay: 2000, at: 24_000, reason: 'status', status: 429, retryAfter: 2000 },
      { type: 'request', attempt: 3, conditional: true },
      { type: 'response', status: 304, ms: 5 },
      { type: 'wait', delay: 1000, at: 26_000 },
    ];
    for (const event of events) {
      state = applyPollEvent(state, event);
      states.push([state.attempt, state.nextAttemptAt]);
    }
    expect(states).toEqual([
      [0, undefined],
      [0, undefined],
      [1, 13_000],
      [1, undefined],
      [2, 20_000],
      [2, undefined],
      [2, undefined],
      [2, 24_000],
      [2, undefined],
      [0, undefined],
      [0, undefined],
    ]);
  });

  it('shows an origin cooldown as the next attempt, and clears it on pause and wake', () => {
    expect(fold([{ type: 'cooldown', delay: 4000, at: 9000, origin: 'http://127.0.0.1' }]).nextAttemptAt).toBe(9000);
    const waiting = fold([{ type: 'retry', attempt: 1, failures: 1, delay: 1, at: 5, reason: 'network', retryAfter: null }]);
    expect(applyPollEvent(waiting, { type: 'pause', reason: 'hidden' }).nextAttemptAt).toBeUndefined();
    expect(applyPollEvent(waiting, { type: 'wake', reason: 'visible' }).nextAttemptAt).toBeUndefined();
  });

  it('returns the same state object when nothing changes, so React skips the render', () => {
    expect(applyPollEvent(polling, { type: 'request', attempt: 1, conditional: false })).toBe(polling);
    expect(applyPollEvent(polling, { type: 'response', status: 200, ms: 1 })).toBe(polling);
    expect(applyPollEvent(polling, { type: 'wait', delay: 1, at: 1 })).toBe(polling);
    expect(applyPollEvent(polling, { type: 'resume' })).toBe(polling);
  });
});
