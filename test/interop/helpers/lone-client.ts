import { expect } from 'vitest';
import { poll } from '../../../src/index.js';
import type { RecordedServer } from './recorded-server.js';
import { exhaustedUntil } from './told.js';

/**
 * One client polls `path` (a limiter of 2 requests a window) until it has
 * had 3 bodies, 100 ms apart; resolves with the reset the second 200
 * announced as it spent the window's last request (remaining 0).
 */
export async function loneClient(server: RecordedServer, path: string): Promise<number> {
  let bodies = 0;
  await poll(`${server.url}${path}`, { interval: 100, conditional: false, timeout: 10_000, init: { headers: { 'x-client': 'lone' } }, isDone: () => ++bodies === 3 });
  const spent = server.at(path)[1]!;
  const until = exhaustedUntil(spent);
  expect(until, 'the second 200 says remaining 0 and when the window resets').toBeGreaterThan(spent.at);
  return until!;
}
