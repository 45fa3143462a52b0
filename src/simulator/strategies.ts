import { decorrelatedJitter, equalJitter, exponential, fetchWithRetry, isPollGaveUpError, poll, type Backoff, type Environment } from '../index.js';

/** One simulated client, as a strategy sees it. */
export interface SimulatedClient {
  /** The URL this client polls (its own job). */
  url: string;
  /** Virtual time, this client's own seeded randomness, always visible. */
  env: Partial<Environment> & Pick<Environment, 'now' | 'setTimeout' | 'random'>;
  /** The fetch to send with: the simulated network to the modelled server. */
  fetch: typeof fetch;
  /** ms between polls. */
  interval: number;
  /** True for the body of a finished job. */
  isDone: (data: unknown) => boolean;
  /** Call when the client has seen the job done. */
  done(): void;
  /** Call when the client's poller gave up. */
  gaveUp(): void;
  /** Call with an error nobody expected (a bug): the run fails with it. */
  crashed(error: unknown): void;
}

/** How a fleet of clients polls. */
export interface Strategy {
  /** Its name, as `--strategies` and `SimulateOptions.strategies` give it. */
  name: string;
  /** What it does, in a line. */
  description: string;
  /** Starts one client's polling; the client reports back through `done`, `gaveUp` and `crashed`. */
  start(client: SimulatedClient): void;
}

// Every simulated client is its own browser or device: nothing is shared
// between them through the realm they happen to run in here. A modelled
// client is always visible and online, so it has no pauses to check either:
// the same requests, without two hooks per client (a large fleet's heap).
// (Spread, so these options may be unknown to the poll of an older build.)
const ownRealm = { cooldown: false, pauseWhenHidden: false, pauseWhenOffline: false } as const;

/** A strategy running pollite's real `poll`, with `backoff` replacing the default when given. */
const pollStrategy = (name: string, description: string, backoff?: (random: () => number) => Backoff): Strategy => ({
  name,
  description,
  start(client) {
    const once = (): void => {
      poll(client.url, {
        ...ownRealm,
        env: client.env,
        fetch: client.fetch,
        interval: client.interval,
        isDone: client.isDone,
        ...(backoff ? { backoff: backoff(client.env.random) } : {}),
      }).then(
        () => client.done(),
        (error: unknown) => {
          if (!isPollGaveUpError(error)) return client.crashed(error);
          // As an app would: show the error, then try again a little later.
          client.gaveUp();
          client.env.setTimeout(once, client.interval);
        },
      );
    };
    once();
  },
});

/** `setInterval` + `fetch`: a request every interval whatever happens, no ETag, no backoff, no Retry-After. */
const naive: Strategy = {
  name: 'naive',
  description: 'setInterval + fetch: fixed rate, no backoff, ignores Retry-After',
  start(client) {
    let finished = false;
    const tick = (): void => {
      if (finished) return;
      client.env.setTimeout(tick, client.interval);
      client.fetch(client.url).then(async (response) => {
        if (!response.ok) return void (await response.body?.cancel());
        const data: unknown = await response.json();
        if (!finished && client.isDone(data)) {
          finished = true;
          client.done();
        }
      }, client.crashed);
    };
    tick();
  },
};

/**
 * A loop of pollite's `fetchWithRetry` with its defaults, then `interval`:
 * what a careful hand-written poller built on pollite's retry looks like.
 */
const fetchWithRetryLoop: Strategy = {
  name: 'fetch-with-retry',
  description: 'fetchWithRetry (its defaults) in a loop, then interval',
  start(client) {
    const once = (): void => {
      // fetchWithRetry has no pauses: of ownRealm, only its cooldown.
      fetchWithRetry(client.url, { retry: { cooldown: ownRealm.cooldown, env: client.env, fetch: client.fetch } })
        .then(async (response) => {
          if (!response.ok) await response.body?.cancel();
          else if (client.isDone(await response.json())) return client.done();
          client.env.setTimeout(once, client.interval);
        })
        .then(undefined, client.crashed);
    };
    once();
  },
};

const BASE = 2000;
const CAP = 30_000;

/** The strategies `simulate` knows, by name. */
export const STRATEGIES: Readonly<Record<string, Strategy>> = Object.freeze({
  naive,
  'fetch-with-retry': fetchWithRetryLoop,
  exponential: pollStrategy(
    'exponential',
    `poll with exponential({ base: ${BASE}, cap: ${CAP} }): backoff without jitter`,
    (random) => exponential({ base: BASE, cap: CAP, random }),
  ),
  pollite: pollStrategy('pollite', "poll's defaults: full jitter, Retry-After as a floor, ETag"),
  'equal-jitter': pollStrategy('equal-jitter', `poll with equalJitter({ base: ${BASE}, cap: ${CAP} })`, (random) =>
    equalJitter({ base: BASE, cap: CAP, random }),
  ),
  'decorrelated-jitter': pollStrategy(
    'decorrelated-jitter',
    `poll with decorrelatedJitter({ base: ${BASE}, cap: ${CAP} })`,
    (random) => decorrelatedJitter({ base: BASE, cap: CAP, random }),
  ),
});
