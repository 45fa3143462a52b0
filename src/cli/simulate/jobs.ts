// The two kinds of run of `pollite simulate`, from its flags: each flag is
// checked (a UsageError naming it) before anything runs.
import {
  awsOccStudy,
  MAX_CLIENTS,
  MIN_INTERVAL,
  OCC_STRATEGIES,
  occPanels,
  occTable,
  renderChart,
  SCENARIO_NAMES,
  simulate,
  simulationPanel,
  simulationTable,
  STRATEGIES,
  type OccStrategy,
  type ScenarioName,
} from '../../simulator/index.js';
import { availableParallelism } from 'node:os';
import { parseDuration } from '../duration.js';
import { UsageError } from '../usage-error.js';

/** An integer flag from `min` to `max`, or a UsageError naming it. */
export const integer = (value: string | undefined, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${flag} expects an integer >= ${min}, got '${value}'`);
  }
  if (n > max) throw new UsageError(`--${flag} takes at most ${max.toLocaleString('en-US')}, got '${value}'`);
  return n;
};

/** A duration flag of at least `min` ms (parseDuration caps it at about 24 days). */
const time = (value: string | undefined, flag: string, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const ms = parseDuration(value, `--${flag}`);
  if (ms < min) throw new UsageError(`--${flag} must be at least ${min}ms, got '${value}'`);
  return ms;
};

const list = (value: string | undefined): string[] | undefined =>
  value?.split(',').map((item) => item.trim()).filter((item) => item !== '');

/** The flags of `pollite simulate`, as parsed. */
export interface Flags {
  scenario?: string | undefined;
  clients?: string | undefined;
  strategies?: string | undefined;
  duration?: string | undefined;
  interval?: string | undefined;
  runs?: string | undefined;
  workers?: string | undefined;
}

/** From this many clients on, `--workers auto` splits the fleet over the machine's cores (below, the threads mostly wait for each other). */
export const AUTO_WORKERS_FROM = 20_000;

/** `--workers`: an integer, or `auto` (the default): one per core, up to 4, for a fleet of 20,000 clients or more; else 1. */
export const workersOf = (value: string | undefined, clients: number): number => {
  if (value === undefined || value.trim() === 'auto') return clients >= AUTO_WORKERS_FROM ? Math.min(availableParallelism(), 4) : 1;
  return Math.min(integer(value, 'workers', 1, 64)!, clients);
};

/** What a run prints and draws. */
export interface Output {
  text: string;
  json: object;
  svg: string;
}

/** Checks the flags of the AWS study; returns the study, to run. */
export function occJob(values: Flags, seed: number): () => Output {
  const clients = list(values.clients)?.map((n) => integer(n, 'clients', 1)!);
  const strategies = list(values.strategies);
  for (const s of strategies ?? []) {
    if (!OCC_STRATEGIES.includes(s as OccStrategy)) {
      throw new UsageError(`--strategies for aws-occ takes ${OCC_STRATEGIES.join(', ')}; got '${s}'`);
    }
  }
  if (values.workers !== undefined) throw new UsageError('--workers applies to fleet scenarios only, not aws-occ');
  const runs = integer(values.runs, 'runs', 1) ?? 100;
  return () => {
    const points = awsOccStudy({ clients, runs, seed, strategies: strategies as OccStrategy[] | undefined });
    return {
      text: occTable(points, runs),
      json: { scenario: 'aws-occ', runs, seed, points },
      svg: renderChart(occPanels(points), {
        width: 560,
        notes: [`AWS OCC model, pollite's backoff functions (base 10 ms, cap 2000 ms), mean of ${runs} runs, seed ${seed}`],
      }),
    };
  };
}

/** Checks the flags of a fleet simulation; returns the simulation, to run. */
export function simulationJob(values: Flags, scenario: string, seed: number): () => Promise<Output> {
  if (!SCENARIO_NAMES.includes(scenario as ScenarioName)) {
    throw new UsageError(`--scenario takes ${[...SCENARIO_NAMES, 'aws-occ'].join(', ')}; got '${scenario}'`);
  }
  const strategies = list(values.strategies);
  if (strategies?.length === 0) throw new UsageError('--strategies names no strategy');
  for (const s of strategies ?? []) {
    // Own names only: `constructor` or `toString` is on every object's prototype, not a strategy.
    if (!Object.hasOwn(STRATEGIES, s)) throw new UsageError(`--strategies takes ${Object.keys(STRATEGIES).join(', ')}; got '${s}'`);
  }
  if (values.runs !== undefined) throw new UsageError('--runs applies to --scenario aws-occ only');
  const clients = integer(values.clients, 'clients', 1, MAX_CLIENTS);
  const options = {
    scenario: scenario as ScenarioName,
    clients,
    workers: workersOf(values.workers, clients ?? 1000),
    strategies,
    duration: time(values.duration, 'duration', 1),
    interval: time(values.interval, 'interval', MIN_INTERVAL),
    seed,
  };
  return async () => {
    const result = await simulate(options);
    return { text: simulationTable(result), json: result, svg: renderChart([simulationPanel(result)], { width: 900 }) };
  };
}
