// The public API of `pollite/simulator`. Every export is named here on purpose.

import { VirtualClock } from '../testing/index.js';

export { simulate } from './simulate.js';
export type { SimulateOptions, SimulationResult } from './simulate-options.js';
export type { StrategyMetrics } from './metrics.js';
export type { ScenarioName } from './scenarios.js';
export type { ServerModel, Outage } from './server-model.js';
export { STRATEGIES } from './strategies.js';
export type { Strategy, SimulatedClient } from './strategies.js';
/**
 * @deprecated The simulator's clock is now pollite's one virtual clock:
 * import `VirtualClock` from `pollite/testing`. Its constructor takes
 * options (`new VirtualClock({ resolution: 1 })` for the old default grid)
 * and `env({ random })` replaces `env(random)`.
 */
export const VirtualTime = VirtualClock;
/** @deprecated Use `VirtualClock` from `pollite/testing`. */
export type VirtualTime = VirtualClock;
export { mulberry32 } from './prng.js';
export { awsOccStudy, runOcc, OCC_STRATEGIES } from './aws-occ.js';
export type { OccStrategy, OccStudyOptions, OccPoint, OccRun } from './aws-occ.js';
export { SCENARIO_NAMES } from './scenarios.js';
export { MAX_CLIENTS, MIN_INTERVAL } from './normalize-options.js';
export { renderChart } from './chart.js';
export type { ChartPanel, ChartSeries, ChartOptions } from './chart.js';
export { simulationTable, simulationPanel, occTable, occPanels, textTable } from './report.js';
