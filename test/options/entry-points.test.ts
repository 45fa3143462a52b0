import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClusterRedis } from '../../src/cluster/index.js';
import { createCluster } from '../../src/cluster/index.js';
import { paceByData, share, shareTabs } from '../../src/cooperate/index.js';
import { createRetryBudget, decorrelatedJitter, equalJitter, exponential, fetchWithRetry, fullJitter, poll, retry } from '../../src/index.js';
import { createFetchState, createPollState } from '../../src/observe/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { simulate } from '../../src/simulator/index.js';
import { retryPolicy } from '../../src/tanstack/index.js';
import { VirtualClock } from '../../src/testing/index.js';

// Every options object of every entry point refuses a name it does not read
// (`{ isdone }`, `{ intervalMs }`, `retry: { retires }`): a TypeError naming
// it and the name meant, before anything is sent. Nothing here reaches a
// server: a call that went through would meet `offline` or `ok`.

const url = 'http://127.0.0.1:9/jobs/1';
afterEach(() => {
  vi.unstubAllGlobals();
});
const offline = (): Promise<Response> => Promise.reject(new Error('offline'));
const ok = async (): Promise<Response> => new Response('{}', { headers: { 'content-type': 'application/json' } });

/** The message of the TypeError `promise` rejects with. */
async function refused(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TypeError);
  return (error as TypeError).message;
}

/** The message of the TypeError `call` throws. */
function thrown(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as TypeError).message;
  }
  throw new Error('nothing was thrown');
}

describe('poll', () => {
  it.each([
    [{ isdone: () => true }, 'Unknown option `isdone`: did you mean `isDone`?'],
    [{ intervalMs: 100 }, 'Unknown option `intervalMs`: did you mean `interval`?'],
    [{ pauseWhenHiden: false }, 'Unknown option `pauseWhenHiden`: did you mean `pauseWhenHidden`?'],
    [{ method: 'POST' }, 'Expected `method` to be given as `init.method`'],
    [{ init: { methd: 'POST' } }, 'Unknown option `init.methd`: did you mean `init.method`?'],
  ])('%o', async (options, message) => {
    const fetch = vi.fn(offline);
    expect(await refused(poll(url, { retries: 0, ...(options as object) }))).toBe(message);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('leaves the fields of `init` to a fetch of its own (node-fetch reads `agent`)', async () => {
    const fetch = vi.fn((_input: RequestInfo | URL, _init?: RequestInit) => ok());
    await expect(poll(url, { init: { agent: {} } as RequestInit, fetch, isDone: () => true })).resolves.toEqual({});
    expect(fetch.mock.calls[0]![1]).toMatchObject({ agent: {} });
  });
});

describe('retry', () => {
  it('refuses `retires`, naming `retries`, before fn is called', async () => {
    const fn = vi.fn(async () => 1);
    expect(await refused(retry(fn, { retires: 3 } as never))).toBe('Unknown option `retires`: did you mean `retries`?');
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('fetchWithRetry: fetch init at the top, the retry options under `retry`', () => {
  const RETRY_AT_TOP = "the second argument is fetch's init, with the retry options under `retry`";
  it.each([
    [{ retries: 3 }, `Expected \`retries\` to be given as \`retry.retries\`: ${RETRY_AT_TOP}`],
    [{ timeout: 5000 }, `Expected \`timeout\` to be given as \`retry.timeout\`: ${RETRY_AT_TOP}`],
    [{ retry: { retires: 3 } }, 'Unknown option `retry.retires`: did you mean `retry.retries`?'],
    [{ retry: { statusCode: [503] } }, 'Unknown option `retry.statusCode`: did you mean `retry.statusCodes`?'],
    [{ methd: 'POST' }, 'Unknown option `methd`: did you mean `method`?'],
    [{ header: {} }, 'Unknown option `header`: did you mean `headers`?'],
  ])('%o', async (init, message) => {
    // The global fetch: a fetch of one's own may read fields fetch does not.
    const fetch = vi.fn(ok);
    vi.stubGlobal('fetch', fetch);
    expect(await refused(fetchWithRetry(url, init as RequestInit))).toBe(message);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("takes fetch's own fields, Node's `dispatcher` among them, and leaves any other to a fetch of its own", async () => {
    const fetch = vi.fn(ok);
    await fetchWithRetry(url, { method: 'GET', cache: 'no-store', dispatcher: {}, retry: { fetch } } as RequestInit);
    await fetchWithRetry(url, { agent: {}, retry: { fetch } } as RequestInit);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(await refused(fetchWithRetry(url, { agent: {}, retries: 1, retry: { fetch } } as RequestInit))).toMatch(/^Expected `retries` to be given as `retry.retries`/);
  });
});

describe('createRetryBudget and the backoff strategies', () => {
  it.each([
    [() => createRetryBudget({ capacty: 10 } as never), 'Unknown option `capacty`: did you mean `capacity`?'],
    [() => fullJitter({ base: 1, cap: 2, randm: Math.random } as never), 'Unknown option `randm`: did you mean `random`?'],
    [() => fullJitter({ base: 1, cap: 2, jitter: 0.1 } as never), 'Unknown option `jitter`: expected one of `base`, `cap`, `random`'],
    [() => equalJitter({ base: 1, cap: 2, capp: 3 } as never), 'Unknown option `capp`: did you mean `cap`?'],
    [() => decorrelatedJitter({ bas: 1, base: 1, cap: 2 } as never), 'Unknown option `bas`: did you mean `base`?'],
    [() => exponential({ base: 1, cap: 2, jiter: 0.1 } as never), 'Unknown option `jiter`: did you mean `jitter`?'],
  ])('%s', (call, message) => {
    expect(thrown(call)).toBe(message);
  });

  it('exponential takes its own `jitter`', () => {
    expect(exponential({ base: 1, cap: 2, jitter: 0.5, random: () => 0 })(1)).toBe(1);
  });
});

describe('pollite/cooperate', () => {
  it.each([
    [() => share({ kye: 'user 1' } as never), 'Unknown option `kye`: did you mean `key`?'],
    [() => shareTabs({ Key: 'user 1' } as never), 'Unknown option `Key`: did you mean `key`?'],
    [() => paceByData({ min: 1, max: 2, factr: 2 } as never), 'Unknown option `factr`: did you mean `factor`?'],
  ])('%s', (call, message) => {
    expect(thrown(call)).toBe(message);
  });
});

describe('pollite/operation', () => {
  const OPERATION_AT_TOP = "the second argument is fetch's init, with the operation options under `operation`";
  it.each([
    [{ operation: { isFaild: () => false } }, 'Unknown option `operation.isFaild`: did you mean `operation.isFailed`?'],
    [{ operation: { intervl: 1000 } }, 'Unknown option `operation.intervl`: did you mean `operation.interval`?'],
    [{ operation: { maxAttempts: 3 } }, 'Expected `operation.maxAttempts` to be given as `retries` (the same number: failures in a row that are tried again)'],
    [{ idempotencyKey: true }, `Expected \`idempotencyKey\` to be given as \`operation.idempotencyKey\`: ${OPERATION_AT_TOP}`],
    [{ methd: 'POST' }, 'Unknown option `methd`: did you mean `method`?'],
  ])('pollOperation %o', async (init, message) => {
    const fetch = vi.fn(ok);
    vi.stubGlobal('fetch', fetch);
    expect(await refused(pollOperation(url, init as never))).toBe(message);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('pollite/testing', () => {
  it('VirtualClock refuses `strat`, naming `start`', () => {
    expect(thrown(() => new VirtualClock({ strat: 0 } as never))).toBe('Unknown option `strat`: did you mean `start`?');
  });
});

describe('pollite/cluster', () => {
  /** A Redis that answers nothing: these calls never reach it. */
  const redis: ClusterRedis = {
    send: () => Promise.reject(new Error('no Redis here')),
    subscribe: async () => undefined,
    unsubscribe: async () => undefined,
    close: async () => undefined,
  };

  it('createCluster, and the options of share(), budget() and fetch()', async () => {
    expect(thrown(() => createCluster({ redis, leese: 3000 } as never))).toBe('Unknown option `leese`: did you mean `lease`?');
    const cluster = createCluster({ redis, recheck: 60_000 });
    try {
      expect(thrown(() => cluster.share({ publsh: false } as never))).toBe('Unknown option `publsh`: did you mean `publish`?');
      expect(thrown(() => cluster.budget({ nme: 'orders' } as never))).toBe('Unknown option `nme`: did you mean `name`?');
      expect(thrown(() => cluster.budget({ name: 'orders', capacty: 10 } as never))).toBe('Unknown option `capacty`: did you mean `capacity`?');
      expect(thrown(() => cluster.fetch({ maxRetryAftr: 1000 } as never))).toBe('Unknown option `maxRetryAftr`: did you mean `maxRetryAfter`?');
    } finally {
      await cluster.close();
    }
  });
});

describe('pollite/tanstack', () => {
  it('retryPolicy refuses `maxretries`, naming `maxRetries`', () => {
    expect(thrown(() => retryPolicy({ maxretries: 2 } as never))).toBe('Unknown option `maxretries`: did you mean `maxRetries`?');
  });
});

describe('pollite/observe: the error of the snapshot', () => {
  it('createPollState: poll refuses it', async () => {
    const state = createPollState(url, { isdone: () => true, fetch: offline } as never);
    state.start();
    await vi.waitFor(() => expect(state.getSnapshot().status).toBe('error'));
    expect(state.getSnapshot().error).toEqual(new TypeError('Unknown option `isdone`: did you mean `isDone`?'));
  });

  it.each([
    [{ parce: async () => 1 }, 'Unknown option `parce`: did you mean `parse`?'],
    [{ retires: 1 }, 'Unknown option `retires`: did you mean `retries`?'],
    [{ init: { methd: 'POST' } }, 'Unknown option `init.methd`: did you mean `init.method`?'],
    [{ signal: new AbortController().signal }, 'Expected `signal` to be left out: `stop()` aborts the fetch'],
  ])('createFetchState %o', async (options, message) => {
    const fetch = vi.fn(ok);
    vi.stubGlobal('fetch', fetch);
    const state = createFetchState(url, options as never);
    state.start();
    await vi.waitFor(() => expect(state.getSnapshot().status).toBe('error'));
    expect(state.getSnapshot().error).toEqual(new TypeError(message));
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('pollite/simulator', () => {
  it('simulate refuses `client`, naming `clients`', async () => {
    expect(await refused(simulate({ client: 10, duration: 1000, strategies: ['pollite'] } as never))).toBe('Unknown option `client`: did you mean `clients`?');
  });
});
