import { isPollGaveUpError, poll, type PollOptions } from '../../../src/index.js';

/**
 * The crowd every limiter faces: 30 clients, each done after 2 bodies,
 * through a limit of 20 requests a second for all of them: the first round
 * alone is over the limit, however slowly the machine runs, and the 60
 * bodies take at least three windows.
 */
export const CROWD = Object.freeze({ clients: 30, successes: 2, limit: 20, bodies: 60 });

/** How each client of a crowd ended. */
export interface CrowdResult {
  done: number;
  gaveUp: number;
  timedOut: number;
  /** Anything else, as `name: message`. */
  other: string[];
  /** How long the crowd took, ms. */
  ms: number;
}

/** Options of {@link crowd}. */
export interface CrowdOptions {
  /** @default 30 */
  clients?: number;
  /** 2xx bodies each client needs before it is done. @default 2 */
  successes?: number;
  /** Each client's `interval`, ms. @default 100 */
  interval?: number;
  /** Each client's `timeout`: the bound of the run, ms. @default 20000 */
  timeout?: number;
  /** More options of every client's poll. */
  poll?: PollOptions;
}

/**
 * `clients` pollers of `url`, each identified by its `x-client` header,
 * each polling until it has had `successes` 2xx bodies, started together.
 */
export async function crowd(url: string, options: CrowdOptions = {}): Promise<CrowdResult> {
  const { clients = CROWD.clients, successes = CROWD.successes, interval = 100, timeout = 20_000 } = options;
  const started = Date.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: clients }, (_, i) => {
      let got = 0;
      return poll(url, {
        interval,
        timeout,
        conditional: false,
        ...options.poll,
        init: { headers: { 'x-client': String(i) } },
        isDone: () => ++got >= successes,
      });
    }),
  );
  const result: CrowdResult = { done: 0, gaveUp: 0, timedOut: 0, other: [], ms: Date.now() - started };
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') result.done += 1;
    else if (isPollGaveUpError(outcome.reason)) result.gaveUp += 1;
    else if ((outcome.reason as Error | undefined)?.name === 'TimeoutError') result.timedOut += 1;
    else result.other.push(`${(outcome.reason as Error)?.name}: ${(outcome.reason as Error)?.message}`);
  }
  return result;
}
