import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SimulateOptions } from '../../src/simulator/index.js';

// The simulator must run pollite's real poll, not a model of its policy: a
// default changed inside the library must change what the simulation sees.
const options: SimulateOptions = {
  clients: 20,
  scenario: 'job',
  duration: 20_000,
  interval: 1000,
  strategies: ['pollite'],
  seed: 5,
};

afterEach(() => {
  vi.doUnmock('../../src/poll/defaults.js');
  vi.resetModules();
});

describe('the simulator drives the real poll', () => {
  it('sees ETag/304 go away when the library default `conditional` is switched off', async () => {
    const { simulate } = await import('../../src/simulator/index.js');
    const before = (await simulate(options)).strategies[0]!;
    expect(before).toMatchObject({ requests: 94, statuses: { 200: 40, 304: 54 }, bytes: 8000 });

    vi.resetModules();
    vi.doMock('../../src/poll/defaults.js', async (importOriginal) => {
      const original = await importOriginal<typeof import('../../src/poll/defaults.js')>();
      return { ...original, POLL_DEFAULTS: Object.freeze({ ...original.POLL_DEFAULTS, conditional: false }) };
    });
    const { simulate: simulateChanged } = await import('../../src/simulator/index.js');
    const after = (await simulateChanged(options)).strategies[0]!;
    expect(after.statuses[304]).toBeUndefined();
    expect(after.requests).toBe(before.requests);
    // Each 304 became a full 200.
    expect(after).toMatchObject({ statuses: { 200: 94 }, bytes: 18_800 });
  });

  it("sees the default backoff's jitter: a zero-width default backoff changes the outage numbers", async () => {
    const outage: SimulateOptions = { clients: 20, scenario: 'outage', duration: 20_000, interval: 1000, strategies: ['pollite'] };
    const { simulate } = await import('../../src/simulator/index.js');
    const before = (await simulate(outage)).strategies[0]!;

    vi.resetModules();
    vi.doMock('../../src/poll/defaults.js', async (importOriginal) => {
      const original = await importOriginal<typeof import('../../src/poll/defaults.js')>();
      return { ...original, pollBackoff: () => () => 0 };
    });
    const { simulate: simulateChanged } = await import('../../src/simulator/index.js');
    const after = (await simulateChanged(outage)).strategies[0]!;
    // With no backoff, every failure is retried after the bare 1 s interval.
    expect([before.requestsDuringOutage, after.requestsDuringOutage]).toEqual([40, 69]);
    expect(after.requestsDuringOutage).toBe(after.rps.slice(4, 8).reduce((a, b) => a + b, 0));
  });
});
