import { startServer } from '../../helpers/server.js';

// The server of ../resume-tabs.test.ts: serves the page and its bundle, and
// one job per test at /api/<name>, answering {n, status} with a counter (and
// an ETag, never a 304: each answer is a new body). The
// test arms a Retry-After for the next answer and ends the job. Every request
// is logged with the tab that sent it (its page's Referer), when it arrived,
// and the time before which the server had asked for nothing, so a test
// asserts what the server saw, exactly.

/** One request to the job, as the server saw it. */
export interface Seen {
  /** The tab that sent it (`tab` of its page's URL, from the Referer). */
  tab: string | undefined;
  /** Epoch ms it arrived. */
  at: number;
  /** The `n` of its answer, and its ETag (`"n"`). */
  n: number;
  /** The request's If-None-Match, if any. */
  ifNoneMatch: string | undefined;
  /** Epoch ms before which the server had asked for nothing when it arrived (0: no wait asked). */
  notBefore: number;
  /** Epoch ms its answer left. */
  answered?: number;
  /** The Retry-After its answer carried, s. */
  retryAfter?: number;
}

export interface TabsJobServer {
  url: string;
  /** Every request to the job so far, in order of arrival. */
  seen(): Seen[];
  /** The next answer carries `Retry-After: seconds` (the wait starts when it leaves). */
  askWait(seconds: number): void;
  /** Answers `done` from now on. */
  finish(): void;
  /** Epoch ms before which the server has asked for nothing, now. */
  notBefore(): number;
  /** Starts a new job named `name` (a new path, a fresh log). */
  job(name: string): void;
  close(): Promise<void>;
}

export async function startTabsJobServer(files: Record<string, [string, string]>): Promise<TabsJobServer> {
  let name = '';
  let seen: Seen[] = [];
  let n = 0;
  let wait: number | undefined;
  let done = false;
  let notBefore = 0;
  const server = await startServer((_req, res, request) => {
    const path = request.path.split('?')[0]!;
    const file = files[path];
    if (file) return void res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
    if (path !== `/api/${name}`) return void res.writeHead(404).end();
    const referer = request.headers.referer;
    const tab = referer ? (new URL(referer).searchParams.get('tab') ?? undefined) : undefined;
    const ifNoneMatch = request.headers['if-none-match'] as string | undefined;
    const entry: Seen = { tab, at: Date.now(), n: (n += 1), ifNoneMatch, notBefore };
    seen.push(entry);
    const text = JSON.stringify({ n: entry.n, status: done ? 'done' : 'running' });
    const retryAfter = wait;
    wait = undefined;
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      etag: `"${entry.n}"`,
      'content-length': String(Buffer.byteLength(text)),
      ...(retryAfter !== undefined && { 'retry-after': String(retryAfter) }),
    });
    entry.answered = Date.now();
    if (retryAfter !== undefined) {
      entry.retryAfter = retryAfter;
      notBefore = Math.max(notBefore, entry.answered + retryAfter * 1000);
    }
    res.end(text);
  });
  return {
    url: server.url,
    seen: () => seen,
    askWait: (seconds) => void (wait = seconds),
    finish: () => void (done = true),
    notBefore: () => notBefore,
    job(next) {
      name = next;
      seen = [];
      n = 0;
      wait = undefined;
      done = false;
      notBefore = 0;
    },
    close: () => server.close(),
  };
}
