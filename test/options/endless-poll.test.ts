import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PollOptions } from '../../src/index.js';

// A poll without `isDone`, a signal or a `timeout` can only end by failing:
// it polls until the page or process ends. Not refused (a dashboard may
// poll for ever); said once per realm, in development (see docs/polling.md).

const url = 'http://127.0.0.1:9/status';
const WARNING =
  'pollite: poll() without `isDone`, `signal` or `timeout` polls until the page or process ends. Pass a `signal` to stop it, or `isDone: () => false` to poll for ever on purpose.';

/** A fresh copy of pollite (the warning is once per realm), and the warnings a poll of it with `options` gives; the poll fails at once. */
async function warnings(...runs: Array<(init: { fetch: () => Promise<Response> }) => PollOptions<unknown>>): Promise<unknown[][]> {
  vi.restoreAllMocks();
  vi.resetModules();
  const { poll } = await import('../../src/index.js');
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const fetch = (): Promise<Response> => Promise.reject(new Error('offline'));
  for (const options of runs) await poll(url, { retries: 0, ...options({ fetch }) }).catch(() => undefined);
  return warn.mock.calls;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('poll with no way to end but failure', () => {
  it('warns once, whatever the number of such polls', async () => {
    expect(await warnings((o) => o)).toEqual([[WARNING]]);
    expect(await warnings((o) => o, (o) => ({ ...o, interval: 5 }), (o) => o)).toEqual([[WARNING]]);
  });

  it.each<[string, (o: { fetch: () => Promise<Response> }) => PollOptions<unknown>]>([
    ['isDone', (o) => ({ ...o, isDone: () => false })],
    ['signal', (o) => ({ ...o, signal: new AbortController().signal })],
    ["init's signal", (o) => ({ ...o, init: { signal: new AbortController().signal } })],
    ['timeout', (o) => ({ ...o, timeout: 60_000 })],
  ])('says nothing with %s', async (_name, options) => {
    expect(await warnings(options)).toEqual([]);
  });

  it('nor for a Request, whose signal stops it', async () => {
    vi.resetModules();
    const { poll } = await import('../../src/index.js');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await poll(new Request(url, { signal: new AbortController().signal }), { retries: 0, fetch: () => Promise.reject(new Error('offline')) }).catch(() => undefined);
    expect(warn).not.toHaveBeenCalled();
  });
});
