import type { ServerModel } from './server-model.js';

/** The named scenarios of `simulate` and `pollite simulate`. */
export type ScenarioName = 'outage' | 'outage-retry-after' | 'rate-limit' | 'job';

/** A scenario resolved for a fleet: what the server does and for how long. */
export interface Scenario {
  name: ScenarioName;
  description: string;
  /** Virtual ms simulated. */
  duration: number;
  /** ms between polls. */
  interval: number;
  server: ServerModel;
}

/** The scenarios `simulate` knows, as `--scenario` names them (the AWS study, `aws-occ`, is `awsOccStudy`). */
export const SCENARIO_NAMES: readonly ScenarioName[] = ['outage', 'outage-retry-after', 'rate-limit', 'job'];

/** The steady request rate of `clients` polling every `interval` ms. */
const demand = (clients: number, interval: number): number => (clients * 1000) / interval;

/**
 * The scenario `name` for `clients` clients. Capacities scale with the
 * fleet, so that the same scenario tells the same story at any size: the
 * server copes with the steady load with 50% to spare, not with a herd.
 */
export function scenario(name: ScenarioName, clients: number, interval = 2000, duration = 300_000): Scenario {
  const capacity = Math.ceil(demand(clients, interval) * 1.5);
  const outage = { start: duration / 5, end: (duration * 2) / 5 };
  switch (name) {
    case 'outage':
      return {
        name,
        description: `503 without Retry-After from ${outage.start / 1000} s to ${outage.end / 1000} s; then ${capacity} req/s capacity`,
        duration,
        interval,
        server: { capacity, outages: [{ ...outage, retryAfter: null }] },
      };
    case 'outage-retry-after':
      return {
        name,
        description: `503 with Retry-After: 30 from ${outage.start / 1000} s to ${outage.end / 1000} s; then ${capacity} req/s capacity (overload 503s say Retry-After: 5)`,
        duration,
        interval,
        server: { capacity, overloadRetryAfter: 5, outages: [{ ...outage, retryAfter: 30 }] },
      };
    case 'rate-limit': {
      const rps = Math.max(1, Math.floor(demand(clients, interval) / 2));
      return {
        name,
        description: `rate limit of ${rps} req/s (half the fleet's demand): 429 with Retry-After: 5`,
        duration,
        interval,
        server: { rateLimit: { rps, retryAfter: 5 } },
      };
    }
    case 'job':
      return {
        name,
        description: `a job that finishes at ${duration / 5 / 1000} s; ${capacity} req/s capacity`,
        duration,
        interval,
        server: { capacity, jobDoneAt: duration / 5 },
      };
  }
}
