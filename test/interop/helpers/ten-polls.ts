import { poll, type PollOptions } from '../../../src/index.js';

/**
 * Polls `url` until it has had `count` answers (2xx or 304), as fast as the
 * loop goes (interval 0), then stops; resolves with the statuses it saw.
 */
export async function pollTimes(url: string, count = 10, options: PollOptions = {}): Promise<number[]> {
  const statuses: number[] = [];
  const controller = new AbortController();
  const stop = new Error('enough');
  await poll(url, {
    interval: 0,
    ...options,
    signal: controller.signal,
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type !== 'response') return;
      statuses.push(event.status);
      if (statuses.length === count) controller.abort(stop);
    },
  }).catch((error: unknown) => {
    if (error !== stop) throw error;
  });
  return statuses;
}

/** `n` of `value`: `times(9, 304)`. */
export const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);
