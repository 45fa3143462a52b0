// The runtime matrix's shared smoke suite: plain ESM with no imports, run
// unchanged in Node, Bun, Deno, workerd and Chromium against the driver's
// loopback server (test/runtimes/server.mjs). Each case checks what pollite
// returned AND what the server received (read back from `/__log`).

const FIXED_NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

class CheckFailed extends Error {}

function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

const same = (actual, expected) => JSON.stringify(actual) === JSON.stringify(expected);

function checkSame(actual, expected, what) {
  check(same(actual, expected), `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Real timers that fire at once, recording each delay asked for and which are still pending. */
function fastEnv(extra = {}) {
  const delays = [];
  const live = new Set();
  return {
    delays,
    pending: () => live.size,
    env: {
      now: () => FIXED_NOW,
      random: () => 0,
      setTimeout: (callback, ms) => {
        delays.push(ms);
        const handle = setTimeout(() => {
          live.delete(handle);
          callback();
        }, 0);
        live.add(handle);
        return handle;
      },
      clearTimeout: (handle) => {
        live.delete(handle);
        clearTimeout(handle);
      },
      ...extra,
    },
  };
}

/** An AbortController whose signal counts its listeners, so leaks show in any runtime. */
function countingController() {
  const controller = new AbortController();
  const signal = controller.signal;
  const listeners = new Set();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type, listener, options) => {
    if (type === 'abort') listeners.add(listener);
    add(type, listener, options);
  };
  signal.removeEventListener = (type, listener, options) => {
    if (type === 'abort') listeners.delete(listener);
    remove(type, listener, options);
  };
  return { controller, listeners: () => listeners.size };
}

const settle = (promise) =>
  promise.then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, error }),
  );

const describeError = (error) => `${error?.name}: ${error?.message}`;

/**
 * Runs every case; never throws. Returns `{ runtime, results: [{ name, ok, detail }] }`.
 * `config`: `{ base, deadUrl, runtime }`; `pollite`: the module under test.
 */
export async function runSmoke(pollite, config) {
  const { base, deadUrl } = config;
  let counter = 0;
  const newId = (name) => `${config.runtime}-${name}-${Date.now()}-${counter++}`;
  const serverLog = async (id) => (await fetch(`${base}/__log?id=${encodeURIComponent(id)}`)).json();

  const cases = {
    async 'poll: Retry-After 0, ETag then 304, until done'() {
      const id = newId('poll');
      const statuses = [];
      const { env, delays, pending } = fastEnv();
      const { controller, listeners } = countingController();
      const job = await pollite.poll(`${base}/poll?id=${id}`, {
        interval: 5,
        backoff: () => 0,
        isDone: (data) => data.status === 'done',
        onEvent: (event) => event.type === 'response' && statuses.push(event.status),
        signal: controller.signal,
        env,
      });
      checkSame(job, { status: 'done' }, 'result');
      checkSame(statuses, [503, 200, 304, 200], 'statuses');
      checkSame(delays, [1000, 5, 5], 'waits (Retry-After 0 is a counted failure waiting at least a second)');
      const log = await serverLog(id);
      checkSame(log.map((entry) => entry.ifNoneMatch), [null, null, '"v1"', '"v1"'], 'If-None-Match received');
      // Outside a page every fetch sends max-age=0 on a conditional request (Node's asked by its cache mode, the others
      // by pollite's header), so that Express and Koa answer 304; a page's fetch says what the browser says.
      if (typeof globalThis.location !== 'object') {
        checkSame(log.map((entry) => entry.cacheControl), [null, null, 'max-age=0', 'max-age=0'], 'Cache-Control received');
      }
      checkSame([pending(), listeners()], [0, 0], 'timers and signal listeners left');
      return `statuses ${statuses.join(',')}`;
    },

    async 'poll: Retry-After in seconds and as an HTTP-date is the floor'() {
      const id = newId('ra');
      const { env, delays } = fastEnv();
      // cooldown: false, or these Retry-Afters would quiet the origin for the later cases (the clock here stands still).
      await pollite.poll(`${base}/retry-after?id=${id}`, { interval: 0, isDone: () => true, retries: 0, cooldown: false, env });
      // random() = 0: exactly the server's wait; 7 s, then the date 30 s after the fixed clock.
      checkSame(delays, [7000, 30000], 'waits');
      checkSame((await serverLog(id)).length, 3, 'requests');
      check(pollite.parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', { now: FIXED_NOW }) === 30000, 'parseRetryAfter date');
      return `waits ${delays.join(',')} ms`;
    },

    async 'poll: 404 rejects with HttpError after one request'() {
      const id = newId('404');
      const result = await settle(pollite.poll(`${base}/missing?id=${id}`, { env: fastEnv().env }));
      check(!result.ok && pollite.isHttpError(result.error) && result.error.status === 404, `got ${describeError(result.error)}`);
      checkSame((await serverLog(id)).length, 1, 'requests');
      return describeError(result.error);
    },

    async 'poll: abort stops the request in flight and leaves nothing behind'() {
      const id = newId('abort');
      const { env, pending } = fastEnv();
      const { controller, listeners } = countingController();
      const reason = new Error('user left');
      const running = settle(pollite.poll(`${base}/hang?id=${id}`, { signal: controller.signal, env }));
      // Abort once the server has the request, so the abort lands mid-flight.
      for (let i = 0; i < 200 && (await serverLog(id)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      controller.abort(reason);
      const result = await running;
      check(!result.ok && result.error === reason, `rejects with signal.reason, got ${describeError(result.error)}`);
      checkSame([pending(), listeners()], [0, 0], 'timers and signal listeners left');
      let log = await serverLog(id);
      for (let i = 0; i < 100 && !log[0]?.closedEarly; i++) {
        await new Promise((r) => setTimeout(r, 10));
        log = await serverLog(id);
      }
      checkSame(log.length, 1, 'requests');
      check(log[0].closedEarly, 'the server saw the request cancelled');
      return 'server saw the connection closed';
    },

    async 'poll: requestTimeout and a refused connection are retryable failures'() {
      const id = newId('timeout');
      const timedOut = await settle(pollite.poll(`${base}/hang?id=${id}`, { requestTimeout: 50, retries: 0 }));
      check(pollite.isPollGaveUpError(timedOut.error), `timeout: got ${describeError(timedOut.error)}`);
      check(pollite.isTimeoutError(timedOut.error.cause), `timeout cause: got ${describeError(timedOut.error.cause)}`);
      const { env } = fastEnv();
      const refused = await settle(pollite.poll(deadUrl, { retries: 2, env }));
      check(pollite.isPollGaveUpError(refused.error), `refused: got ${describeError(refused.error)}`);
      check(refused.error.attempts === 3 && refused.error.status === undefined, `attempts ${refused.error.attempts}`);
      return `refused → ${describeError(refused.error.cause)}`;
    },

    async "isRetryableError: this runtime's own network error"() {
      const raw = await settle(fetch(deadUrl));
      check(!raw.ok, 'fetch of a refused port failed');
      check(pollite.isRetryableError(raw.error), `not recognised as a network error: ${describeError(raw.error)} (code ${raw.error?.code}, cause ${describeError(raw.error?.cause)})`);
      const controller = new AbortController();
      controller.abort();
      const aborted = await settle(fetch(`${base}/hang?id=${newId('aborted')}`, { signal: controller.signal }));
      check(!pollite.isRetryableError(aborted.error), `an abort must not be retryable: ${describeError(aborted.error)}`);
      return describeError(raw.error);
    },

    async 'retry: retries a flaky call, then stops at once on abort'() {
      const id = newId('retry');
      const { env, delays } = fastEnv();
      const value = await pollite.retry(
        async ({ signal }) => {
          const response = await fetch(`${base}/flaky?id=${id}`, { signal });
          if (!response.ok) throw new pollite.HttpError(response);
          return response.json();
        },
        { retries: 3, backoff: (n) => n * 100, env },
      );
      checkSame(value, { ok: true, attempt: 3 }, 'value');
      checkSame(delays, [100, 200], 'waits');
      const controller = new AbortController();
      const reason = new Error('stop');
      let calls = 0;
      const running = settle(
        pollite.retry(
          async () => {
            calls += 1;
            if (calls === 1) queueMicrotask(() => controller.abort(reason));
            throw new TypeError('fetch failed');
          },
          { retries: 5, signal: controller.signal, env: fastEnv().env },
        ),
      );
      const aborted = await running;
      check(!aborted.ok && aborted.error === reason && calls === 1, `after abort: ${calls} calls, ${describeError(aborted.error)}`);
      return `3 attempts, then abort after ${calls} call`;
    },

    async 'fetchWithRetry: retries 503s, and gives up on a refused port'() {
      const id = newId('fwr');
      const { env, delays } = fastEnv();
      const response = await pollite.fetchWithRetry(`${base}/flaky?id=${id}`, { retry: { retries: 3, backoff: () => 1, env } });
      checkSame([response.status, await response.json()], [200, { ok: true, attempt: 3 }], 'response');
      checkSame(delays, [1, 1], 'waits');
      checkSame((await serverLog(id)).length, 3, 'requests');
      const refused = await settle(pollite.fetchWithRetry(deadUrl, { retry: { retries: 2, backoff: () => 1, env: fastEnv().env } }));
      check(!refused.ok && pollite.isRetryableError(refused.error), `refused: ${describeError(refused.error)}`);
      return `refused → ${describeError(refused.error)}`;
    },
  };

  const results = [];
  for (const [name, run] of Object.entries(cases)) {
    try {
      const detail = await run();
      results.push({ name, ok: true, detail: detail ?? '' });
    } catch (error) {
      results.push({ name, ok: false, detail: error instanceof CheckFailed ? error.message : `threw ${describeError(error)}\n${error?.stack ?? ''}` });
    }
  }
  return { runtime: config.runtime, results };
}
