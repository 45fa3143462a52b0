import type { SimulateOptions } from '../../../src/simulator/index.js';

/**
 * The options of a run whose requests come at exact times: one naive client,
 * starting at 0, with no network latency, so it sends at 0, `interval`,
 * 2 × `interval`... and a test can count them by hand. `overrides` add the
 * duration, the interval and whatever else the case is about.
 */
export const exactClient = (overrides: SimulateOptions): SimulateOptions => ({
  clients: 1,
  startSpread: 0,
  latency: { mean: 0, sd: 0 },
  strategies: ['naive'],
  ...overrides,
});
