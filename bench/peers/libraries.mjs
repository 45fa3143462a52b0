// One client of each library, polling a job every second until it is done,
// with that library's defaults for everything else. Each returns a promise
// that resolves when the client has seen "done" (or the signal aborts).
import axios from 'axios';
import axiosRetry from 'axios-retry';
import got from 'got';
import ky from 'ky';
import pRetry from 'p-retry';
import { environmentManager, QueryClient, QueryObserver } from '@tanstack/query-core';
// The build under test: a private snapshot of dist/ when run.mjs made one.
const { poll } = await import(process.env.POLLITE_DIST ?? '../../dist/index.js');

const INTERVAL = 1000;
const isDone = (job) => job?.status === 'done';

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The polling loop most people write around a request library: request, then wait 1 s. */
const loop = (request) => async (url, signal) => {
  while (!signal.aborted) {
    try {
      if (isDone(await request(url, signal))) return true;
    } catch {
      // The library has already retried as it does by default; poll again next interval.
    }
    await sleep(INTERVAL, signal);
  }
  return false;
};

const failOnStatus = async (response) => {
  if (response.ok) return response.json();
  await response.body?.cancel();
  throw new Error(`HTTP ${response.status}`);
};

/**
 * The final poller of the seed article on polling an API without overloading
 * the server, written here from its rules (at the bench's 1 s, not its 2 s):
 * one request at a time; If-None-Match with the last ETag; a 2xx or 304
 * resets the failure count and waits the interval; a 429, a 5xx or a
 * network error waits the Retry-After (seconds or a date, capped at 5
 * minutes) if there is one, else a full-jitter backoff, random * min(30 s,
 * 1 s * 2^failures), and gives up after 8 in a row; any other status stops.
 */
const seedRetryAfter = (value) => {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Math.min(Number(value) * 1000, 300_000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - Date.now()), 300_000);
};

const seed = async (url, signal) => {
  let etag = null;
  let failures = 0;
  while (!signal.aborted) {
    let response = null;
    try {
      response = await fetch(url, { signal, headers: etag ? { 'if-none-match': etag } : {} });
    } catch {
      if (signal.aborted) return false;
    }
    let wait = INTERVAL;
    if (response?.status === 304 || response?.ok) {
      failures = 0;
      if (response.ok) {
        etag = response.headers.get('etag');
        if (isDone(await response.json())) return true;
      }
    } else if (!response || response.status === 429 || response.status >= 500) {
      await response?.body?.cancel();
      failures += 1;
      if (failures > 8) throw new Error('Polling gave up');
      wait = seedRetryAfter(response?.headers.get('retry-after')) ?? Math.random() * Math.min(30_000, 1000 * 2 ** failures);
    } else {
      await response.body?.cancel();
      throw new Error(`Polling failed: HTTP ${response.status}`);
    }
    await sleep(wait, signal);
  }
  return false;
};

const axiosClient = axios.create();
axiosRetry(axiosClient);

// query-core treats a runtime without `window` as a server and then never
// schedules refetchInterval; these clients stand for browsers.
environmentManager.setIsServer(() => false);

/**
 * SWR runs in React: its hooks in 100 components, each in a root of its
 * own, rendered into a jsdom document made visible (SWR polls only while
 * the page is visible), loaded on the first call, in this library's
 * process only (SWR reads `window` when it is imported).
 */
let swrKit;
async function loadSwr() {
  if (swrKit) return swrKit;
  const { JSDOM } = await import('jsdom');
  const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true, url: 'http://localhost/' });
  globalThis.window = dom.window;
  globalThis.document = dom.window.document;
  // Node 20 has no navigator (SWR reads navigator.onLine, react-dom the user agent); React's production build, as an app ships.
  if (!('navigator' in globalThis)) globalThis.navigator = dom.window.navigator;
  process.env.NODE_ENV = 'production';
  const [react, { createRoot }, { default: useSWR }] = await Promise.all([import('react'), import('react-dom/client'), import('swr')]);
  swrKit = { react, createRoot, useSWR, document: dom.window.document };
  return swrKit;
}

/** What a library loads before its fleet's clock starts (the others load with this module). */
export const PREPARE = { swr: loadSwr };

/** What each key stands for, as printed. */
export const LABELS = {
  pollite: 'pollite poll()',
  naive: 'naive setInterval + fetch',
  ky: 'ky (loop + 1 s sleep)',
  got: 'got (loop + 1 s sleep)',
  'p-retry': 'p-retry + fetch (loop + 1 s sleep)',
  'axios-retry': 'axios + axios-retry (loop + 1 s sleep)',
  tanstack: '@tanstack/query-core QueryObserver refetchInterval',
  swr: 'swr useSWR refreshInterval (React 19, jsdom)',
  seed: "the seed article's reference poller (fetch, Retry-After, full jitter, ETag)",
};

export const LIBRARIES = {
  pollite: (url, signal) => poll(url, { interval: INTERVAL, isDone, signal }).then(() => true),

  naive: (url, signal) =>
    new Promise((resolve) => {
      const timer = setInterval(async () => {
        try {
          const response = await fetch(url, { signal });
          if (!response.ok) return void (await response.body?.cancel());
          if (isDone(await response.json())) {
            clearInterval(timer);
            resolve(true);
          }
        } catch {
          // next tick
        }
      }, INTERVAL);
      signal.addEventListener('abort', () => (clearInterval(timer), resolve(false)), { once: true });
    }),

  ky: loop((url, signal) => ky.get(url, { signal }).json()),

  got: loop((url, signal) => got(url, { signal }).json()),

  'p-retry': loop((url, signal) => pRetry(() => fetch(url, { signal }).then(failOnStatus), { signal })),

  'axios-retry': loop((url, signal) => axiosClient.get(url, { signal }).then((response) => response.data)),

  tanstack: (url, signal) =>
    new Promise((resolve) => {
      const client = new QueryClient();
      client.mount();
      const observer = new QueryObserver(client, {
        queryKey: [url],
        queryFn: ({ signal: querySignal }) => fetch(url, { signal: querySignal }).then(failOnStatus),
        refetchInterval: INTERVAL,
      });
      const finish = (seen) => {
        unsubscribe();
        client.clear();
        client.unmount();
        resolve(seen);
      };
      const unsubscribe = observer.subscribe((result) => {
        if (isDone(result.data)) finish(true);
      });
      signal.addEventListener('abort', () => finish(false), { once: true });
    }),

  swr: async (url, signal) => {
    const { react, createRoot, useSWR, document } = await loadSwr();
    return new Promise((resolve) => {
      const root = createRoot(document.createElement('div'));
      let settled = false;
      const finish = (seen) => {
        if (settled) return;
        settled = true;
        // Unmounted after this render: a root is not unmounted from inside its own effect.
        setTimeout(() => root.unmount(), 0);
        resolve(seen);
      };
      function Poller() {
        const { data } = useSWR(url, (key) => fetch(key).then(failOnStatus), { refreshInterval: INTERVAL });
        react.useEffect(() => {
          if (isDone(data)) finish(true);
        }, [data]);
        return null;
      }
      root.render(react.createElement(Poller));
      signal.addEventListener('abort', () => finish(false), { once: true });
    });
  },

  seed,
};
