// The public API of `pollite/simulator`. Every export is named here on purpose.

export { simulate } from './simulate.js';
export type { SimulateOptions, SimulationResult } from './simulate-options.js';
export type { StrategyMetrics } from './metrics.js';
export type { ScenarioName } from './scenarios.js';
export type { ServerModel, Outage } from './server-model.js';
export { STRATEGIES } from './strategies.js';
export type { Strategy, SimulatedClient } from './strategies.js';
export { VirtualTime } from './virtual-time.js';
export { mulberry32 } from './prng.js';
export { awsOccStudy, runOcc, OCC_STRATEGIES } from './aws-occ.js';
export type { OccStrategy, OccStudyOptions, OccPoint, OccRun } from './aws-occ.js';
export { SCENARIO_NAMES } from './scenarios.js';
export { MAX_CLIENTS, MIN_INTERVAL } from './normalize-options.js';
export { renderChart } from './chart.js';
export type { ChartPanel, ChartSeries, ChartOptions } from './chart.js';
export { simulationTable, simulationPanel, occTable, occPanels, textTable } from './report.js';
