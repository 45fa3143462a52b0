import { parseRetryAfter } from '../kit/index.js';
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

/** What one shard's clients did, as the fleet's metrics take it from them (plain data: it may cross threads). */
export interface ClientReport {
  /** Requests sent before the client's last Retry-After had passed. */
  ignored: number;
  statuses: Record<string, number>;
  bytes: number;
  gaveUp: number;
  /** When each client that saw the job done saw it, in no particular order. */
  seenAt: number[];
}

/** Changes of clients' health since the last take, in the order they happened: `delta[i]` (+1 or -1) at `time[i]`. */
export interface HealthChanges {
  time: number[];
  delta: number[];
}

/**
 * The client side of the metrics, for the clients `from` to `to - 1`: what
 * each sent and received. Per-client state lives in typed arrays.
 */
export class ClientMetrics {
  #from: number;
  #notBefore: Float64Array;
  #healthy: Uint8Array;
  #seenAt: Float64Array;
  #ignored = 0;
  #bytes = 0;
  #gaveUp = 0;
  #statuses: Record<string, number> = {};
  #changes: HealthChanges = { time: [], delta: [] };

  constructor(from: number, to: number) {
    this.#from = from;
    this.#notBefore = new Float64Array(to - from);
    this.#healthy = new Uint8Array(to - from);
    this.#seenAt = new Float64Array(to - from).fill(NaN);
  }

  /** A client sends a request at `time`. */
  sent(client: number, time: number): void {
    if (time < this.#notBefore[client - this.#from]! - 1e-6) this.#ignored += 1;
  }

  /** A client receives an answer at `time`. */
  delivered(client: number, time: number, status: number, bytes: number, retryAfter: string | null): void {
    this.#statuses[status] = (this.#statuses[status] ?? 0) + 1;
    this.#bytes += bytes;
    // Read as pollite reads it (seconds or an HTTP-date), but uncapped: the metric is what the server asked for.
    const wait = parseRetryAfter(retryAfter, { now: time, max: Number.MAX_SAFE_INTEGER });
    this.#notBefore[client - this.#from] = wait === null ? 0 : time + wait;
    this.#setHealthy(client, status < 400 ? 1 : 0, time);
  }

  /** A client's poll resolved: it saw the job done at `time`. */
  done(client: number, time: number): void {
    const i = client - this.#from;
    if (Number.isNaN(this.#seenAt[i]!)) this.#seenAt[i] = time;
    this.#setHealthy(client, 1, time);
  }

  /** A client's poll gave up. */
  gaveUp(): void {
    this.#gaveUp += 1;
  }

  /** The health changes since the last call. */
  takeHealthChanges(): HealthChanges {
    const changes = this.#changes;
    this.#changes = { time: [], delta: [] };
    return changes;
  }

  report(): ClientReport {
    return {
      ignored: this.#ignored,
      statuses: { ...this.#statuses },
      bytes: this.#bytes,
      gaveUp: this.#gaveUp,
      seenAt: Array.from(this.#seenAt).filter((at) => !Number.isNaN(at)),
    };
  }

  #setHealthy(client: number, healthy: 0 | 1, time: number): void {
    const i = client - this.#from;
    const before = this.#healthy[i]!;
    if (before === healthy) return;
    this.#healthy[i] = healthy;
    this.#changes.time.push(time);
    this.#changes.delta.push(healthy - before);
  }
}

/**
 * The fleet's metrics: the server side (every arrival, in the order the
 * server saw them), the fleet's health over time, and the clients' reports
 * summed into one {@link StrategyMetrics}.
 */
export class FleetMetrics {
  #strategy: string;
  #clients: number;
  #recovery: number | null;
  #jobDoneAt: number;
  #rps: Int32Array;
  #requests = 0;
  #duringOutage = 0;
  #healthy = 0;
  #checkedRecovery = false;
  #timeTo99: number | null = null;
  /** Changes not yet judged: at or after the last `complete`. */
  #pending: Array<[number, number]> = [];

  constructor(options: { strategy: string; clients: number; duration: number; recovery: number | null; jobDoneAt: number }) {
    this.#strategy = options.strategy;
    this.#clients = options.clients;
    this.#recovery = options.recovery;
    this.#jobDoneAt = options.jobDoneAt;
    this.#rps = new Int32Array(Math.ceil(options.duration / 1000));
  }

  /** A request reaches the server at `time`. */
  arrived(time: number, inOutage: boolean): void {
    this.#requests += 1;
    if (inOutage) this.#duringOutage += 1;
    // Arrivals come at most at `duration`: one exactly then belongs to the last second.
    this.#rps[Math.min(Math.floor(time / 1000), this.#rps.length - 1)]! += 1;
  }

  /**
   * Takes the shards' health changes (each list in the order it happened),
   * knowing that every change before `complete` is in (`Infinity` at the
   * end). The share is judged at the end of each ms: the time to 99% healthy
   * is that of the first ms, from the recovery on, after which 99% of the
   * clients are healthy, whatever order the changes within it came in, so it
   * does not depend on how the fleet is split.
   */
  health(lists: readonly HealthChanges[], complete: number): void {
    const changes = this.#pending;
    for (const list of lists) for (let i = 0; i < list.time.length; i += 1) changes.push([list.time[i]!, list.delta[i]!]);
    changes.sort((a, b) => a[0] - b[0]);
    let i = 0;
    while (i < changes.length && changes[i]![0] < complete) {
      const time = changes[i]![0];
      if (this.#recovery !== null && time > this.#recovery) this.#judge(this.#recovery);
      while (i < changes.length && changes[i]![0] === time) this.#healthy += changes[i++]![1];
      this.#judge(time);
    }
    this.#pending = changes.slice(i);
    if (this.#recovery !== null && complete > this.#recovery) this.#judge(this.#recovery);
  }

  /** Sums the shards' reports with the server's side. */
  result(reports: readonly ClientReport[]): StrategyMetrics {
    const rps = Array.from(this.#rps);
    const recoverySecond = this.#recovery === null ? null : Math.floor(this.#recovery / 1000);
    const statuses: Record<string, number> = {};
    for (const report of reports) for (const [status, count] of Object.entries(report.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    const sum = (of: (report: ClientReport) => number): number => reports.reduce((total, report) => total + of(report), 0);
    const seen = reports
      .flatMap((report) => report.seenAt)
      .map((at) => at - this.#jobDoneAt)
      .sort((a, b) => a - b);
    return {
      strategy: this.#strategy,
      requests: this.#requests,
      requestsDuringOutage: this.#duringOutage,
      peakRpsAfterRecovery: recoverySecond === null ? null : Math.max(0, ...rps.slice(recoverySecond)),
      timeTo99Healthy: this.#timeTo99,
      ignoredRetryAfter: sum((report) => report.ignored),
      // Status codes are integer keys: an object lists them in ascending order, whichever shard counted one first.
      statuses,
      bytes: sum((report) => report.bytes),
      seen: Number.isFinite(this.#jobDoneAt)
        ? { clients: seen.length, p50: percentile(seen, 50), p99: percentile(seen, 99), max: seen.at(-1) ?? null }
        : null,
      gaveUp: sum((report) => report.gaveUp),
      rps,
    };
  }

  /** Judges the healthy share as it stands at the end of ms `time`. */
  #judge(time: number): void {
    if (this.#recovery === null || this.#timeTo99 !== null || time < this.#recovery) return;
    if (time === this.#recovery) {
      if (this.#checkedRecovery) return;
      this.#checkedRecovery = true;
    }
    if (this.#healthy >= 0.99 * this.#clients) this.#timeTo99 = time - this.#recovery;
  }
}
