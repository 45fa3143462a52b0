import { VirtualClock } from '../testing/index.js';
import { ClientMetrics, type ClientReport, type HealthChanges } from './metrics.js';
import { SimulatedNetwork, type Answers, type Arrivals } from './network.js';
import type { normalizeOptions } from './normalize-options.js';
import { deriveSeed, drawFrom, mulberry32, normal } from './prng.js';
import { ModelledServer } from './server-model.js';
import type { Strategy } from './strategies.js';

const URL_OF_JOB = 'https://api.example/jobs/1';
const isDone = (data: unknown): boolean => (data as { status?: unknown } | null)?.status === 'done';

/** What a shard did in one window: the requests that reached the server, and its clients' changes of health. */
export interface WindowReport {
  arrivals: Arrivals;
  health: HealthChanges;
}

/** The options of a run, as `simulate` checked them. */
export type RunOptions = ReturnType<typeof normalizeOptions>;

/**
 * The clients `from` to `to - 1` of a fleet, with their own virtual clock
 * and network: each client is seeded by its number alone (its jitter and
 * its network path), so it behaves the same in whichever shard, or thread,
 * it runs. The server is not here: the shard hands over the requests that
 * arrived in a window and is given the answers before the next.
 */
export class FleetShard {
  readonly #time = new VirtualClock({ resolution: 1 });
  readonly #metrics: ClientMetrics;
  readonly #network: SimulatedNetwork;
  #crash: { error: unknown } | undefined;

  constructor(strategy: Strategy, o: RunOptions, from: number, to: number) {
    const time = this.#time;
    const metrics = (this.#metrics = new ClientMetrics(from, to));
    // Each client's network path draws from its own stream (a state per client, no closure each).
    const paths = new Uint32Array(to - from);
    const network = deriveSeed(o.seed, 0);
    for (let id = from; id < to; id += 1) paths[id - from] = deriveSeed(network, id);
    const { mean, sd } = o.latency;
    const latency =
      sd === 0
        ? () => mean
        : (client: number) => Math.abs(normal(1 - drawFrom(paths, client - from), drawFrom(paths, client - from), mean, sd));
    const server = new ModelledServer(o.server);
    this.#network = new SimulatedNetwork(time, metrics, latency, server.responseTime, server.answers);
    for (let id = from; id < to; id += 1) {
      const random = mulberry32(deriveSeed(o.seed, id + 1));
      const start = random() * o.startSpread;
      const env = time.env({ random });
      time.at(start, () =>
        strategy.start({
          url: URL_OF_JOB,
          env,
          fetch: this.#network.fetchOf(id),
          interval: o.interval,
          isDone,
          done: () => metrics.done(id, time.now()),
          gaveUp: () => metrics.gaveUp(),
          crashed: (error) => (this.#crash ??= { error }),
        }),
      );
    }
  }

  /**
   * Delivers the server's `answers` to the last window's arrivals, then runs
   * the clients up to virtual time `until` (inclusive); rejects with the
   * error of a client that crashed (a bug).
   */
  async advance(until: number, answers: Answers): Promise<WindowReport> {
    this.#network.answer(answers);
    await this.#time.run(until);
    if (this.#crash) throw this.#crash.error;
    return { arrivals: this.#network.takeArrivals(), health: this.#metrics.takeHealthChanges() };
  }

  /** What the shard's clients sent and received over the whole run. */
  report(): ClientReport {
    return this.#metrics.report();
  }
}
