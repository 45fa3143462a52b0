/** setTimeout's largest delay, ms (about 24.8 days). */
const MAX_TIMER = 2 ** 31 - 1;
import { checkServerModel } from './check-server-model.js';
import { fail, numberIn, objectWith, oneOf, shown } from './checks.js';
import { describeServer } from './describe-server.js';
import { SCENARIO_NAMES, scenario as resolveScenario } from './scenarios.js';
import type { SimulateOptions } from './simulate-options.js';
import { STRATEGIES, type Strategy } from './strategies.js';

/** Most clients in one run: each lives in memory (100,000 take about 2.4 GB of heap). */
export const MAX_CLIENTS = 10_000_000;
/**
 * Shortest polling interval, ms: the virtual clock's resolution. Below it a
 * loop could reschedule itself at the same instant for ever (0 did).
 */
export const MIN_INTERVAL = 1;
/** Longest virtual time, ms (as `pollite simulate --duration`): setTimeout's limit, about 24.8 days. */
export const MAX_DURATION = MAX_TIMER;

const OPTION_KEYS = ['clients', 'scenario', 'strategies', 'seed', 'duration', 'interval', 'server', 'latency', 'startSpread', 'workers'] as const;
/** Most threads one run is split over. */
export const MAX_WORKERS = 64;
const DEFAULT_STRATEGIES = ['naive', 'exponential', 'pollite'];

function strategiesOf(value: unknown): Strategy[] {
  const names = Object.keys(STRATEGIES);
  if (!Array.isArray(value)) fail('strategies', `an array of strategy names (${names.join(', ')})`, value);
  if (value.length === 0) throw new TypeError('Expected `strategies` to name at least one strategy');
  return value.map((name: unknown) => {
    // Own names only: `constructor` or `toString` is on every object's prototype, not a strategy.
    if (typeof name !== 'string' || !Object.hasOwn(STRATEGIES, name)) {
      throw new TypeError(`Expected \`strategies\` to name only ${names.join(', ')}; got ${shown(name)}`);
    }
    return STRATEGIES[name]!;
  });
}

/** {@link SimulateOptions} checked, with every default filled in and the scenario resolved. */
export function normalizeOptions(options: SimulateOptions) {
  const o = objectWith<SimulateOptions>(options, 'options', OPTION_KEYS);
  const clients = numberIn(o.clients ?? 1000, 'clients', {
    min: 1,
    integer: true,
    max: MAX_CLIENTS,
    why: 'every client lives in memory',
  });
  const name = oneOf(o.scenario ?? 'outage', 'scenario', SCENARIO_NAMES);
  const strategies = strategiesOf(o.strategies ?? DEFAULT_STRATEGIES);
  const seed = o.seed ?? 1;
  if (!Number.isInteger(seed)) fail('seed', 'an integer', seed);
  const interval = numberIn(o.interval ?? 2000, 'interval', { min: MIN_INTERVAL });
  const duration = numberIn(o.duration ?? 300_000, 'duration', { min: 1, max: MAX_DURATION, why: 'about 24.8 days' });
  const resolved = resolveScenario(name, clients, interval, duration);
  const latency = objectWith<{ mean: number; sd: number }>(o.latency ?? { mean: 50, sd: 10 }, 'latency', ['mean', 'sd']);
  numberIn(latency.mean, 'latency.mean', { min: 0 });
  numberIn(latency.sd, 'latency.sd', { min: 0 });
  const startSpread = numberIn(o.startSpread ?? resolved.interval, 'startSpread', { min: 0 });
  const custom = o.server === undefined ? {} : checkServerModel(o.server);
  const server = { ...resolved.server, ...custom };
  // The scenario's own text describes its own server: say what runs instead.
  const description = Object.keys(custom).length === 0 ? resolved.description : describeServer(server);
  const workers = numberIn(o.workers ?? 1, 'workers', { min: 1, integer: true, max: Math.min(MAX_WORKERS, clients), why: 'at most one per client, and 64' });
  return { clients, seed, strategies, latency, startSpread, workers, ...resolved, description, server };
}
