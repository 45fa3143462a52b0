import { parseRetryAfter } from '../index.js';
import { percentile } from './percentile.js';

/** What one strategy did to the modelled server. Times are virtual ms. */
export interface StrategyMetrics {
  /** The strategy's name, as in `STRATEGIES`. */
  strategy: string;
  /** Requests that reached the server. */
  requests: number;
  /** Requests that reached the server during an outage. */
  requestsDuringOutage: number;
  /** The busiest second after the last outage ended (the thundering herd); null without an outage. */
  peakRpsAfterRecovery: number | null;
  /**
   * ms from the end of the last outage until 99% of clients had a healthy
   * last answer (2xx or 304, or had finished); null without an outage or if it never happened.
   */
  timeTo99Healthy: number | null;
  /** Requests sent before the Retry-After of the client's previous answer had passed. */
  ignoredRetryAfter: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** Body bytes the clients received. */
  bytes: number;
  /** For jobs: ms from completion until each client saw it. */
  seen: {
    /** Clients that saw the job finish. */
    clients: number;
    /** Median ms from completion to seen; null when no client saw it. */
    p50: number | null;
    /** 99th percentile, ms; null when no client saw it. */
    p99: number | null;
    /** The slowest, ms; null when no client saw it. */
    max: number | null;
  } | null;
  /** Times a client's poll gave up (it then started again, as an app would). */
  gaveUp: number;
  /**
   * Requests reaching the server in each virtual second. The run includes
   * its last instant (`duration` itself), so an arrival then counts in the
   * last second, as in `requests`: the series always sums to `requests`.
   */
  rps: number[];
}

/** Collects {@link StrategyMetrics} from the network's notifications. Per-client state lives in typed arrays. */
export class MetricsRecorder {
  #strategy: string;
  #clients: number;
  #recovery: number | null;
  #jobDoneAt: number;
  #rps: Int32Array;
  #notBefore: Float64Array;
  #healthy: Uint8Array;
  #healthyCount = 0;
  #timeTo99: number | null = null;
  #seenAt: Float64Array;
  #requests = 0;
  #duringOutage = 0;
  #ignored = 0;
  #bytes = 0;
  #gaveUp = 0;
  #statuses: Record<string, number> = {};

  constructor(options: { strategy: string; clients: number; duration: number; recovery: number | null; jobDoneAt: number }) {
    this.#strategy = options.strategy;
    this.#clients = options.clients;
    this.#recovery = options.recovery;
    this.#jobDoneAt = options.jobDoneAt;
    this.#rps = new Int32Array(Math.ceil(options.duration / 1000));
    this.#notBefore = new Float64Array(options.clients);
    this.#healthy = new Uint8Array(options.clients);
    this.#seenAt = new Float64Array(options.clients).fill(NaN);
  }

  /** A client sends a request at `time`. */
  sent(client: number, time: number): void {
    if (time < this.#notBefore[client]! - 1e-6) this.#ignored += 1;
  }

  /** A request reaches the server at `time`. */
  arrived(time: number, inOutage: boolean): void {
    this.#requests += 1;
    if (inOutage) this.#duringOutage += 1;
    // Arrivals come at most at `duration`: one exactly then belongs to the last second.
    this.#rps[Math.min(Math.floor(time / 1000), this.#rps.length - 1)]! += 1;
  }

  /** A client receives an answer at `time`. */
  delivered(client: number, time: number, status: number, bytes: number, retryAfter: string | null): void {
    this.#statuses[status] = (this.#statuses[status] ?? 0) + 1;
    this.#bytes += bytes;
    // Read as pollite reads it (seconds or an HTTP-date), but uncapped: the metric is what the server asked for.
    const wait = parseRetryAfter(retryAfter, { now: time, max: Number.MAX_SAFE_INTEGER });
    this.#notBefore[client] = wait === null ? 0 : time + wait;
    this.#setHealthy(client, status < 400 ? 1 : 0, time);
  }

  /** A client's poll resolved: it saw the job done at `time`. */
  done(client: number, time: number): void {
    if (Number.isNaN(this.#seenAt[client]!)) this.#seenAt[client] = time;
    this.#setHealthy(client, 1, time);
  }

  /** A client's poll gave up. */
  gaveUp(): void {
    this.#gaveUp += 1;
  }

  /** Checks the healthy share at `time` (called at the moment of recovery). */
  check(time: number): void {
    if (
      this.#timeTo99 === null &&
      this.#recovery !== null &&
      time >= this.#recovery &&
      this.#healthyCount >= 0.99 * this.#clients
    ) {
      this.#timeTo99 = time - this.#recovery;
    }
  }

  #setHealthy(client: number, healthy: 0 | 1, time: number): void {
    const before = this.#healthy[client]!;
    if (before === healthy) return;
    this.#healthy[client] = healthy;
    this.#healthyCount += healthy - before;
    this.check(time);
  }

  result(): StrategyMetrics {
    const rps = Array.from(this.#rps);
    const recoverySecond = this.#recovery === null ? null : Math.floor(this.#recovery / 1000);
    const seen = Array.from(this.#seenAt)
      .filter((at) => !Number.isNaN(at))
      .map((at) => at - this.#jobDoneAt)
      .sort((a, b) => a - b);
    return {
      strategy: this.#strategy,
      requests: this.#requests,
      requestsDuringOutage: this.#duringOutage,
      peakRpsAfterRecovery: recoverySecond === null ? null : Math.max(0, ...rps.slice(recoverySecond)),
      timeTo99Healthy: this.#timeTo99,
      ignoredRetryAfter: this.#ignored,
      statuses: { ...this.#statuses },
      bytes: this.#bytes,
      seen: Number.isFinite(this.#jobDoneAt)
        ? { clients: seen.length, p50: percentile(seen, 50), p99: percentile(seen, 99), max: seen.at(-1) ?? null }
        : null,
      gaveUp: this.#gaveUp,
      rps,
    };
  }
}
