import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startServer, type TestServer } from '../../helpers/server.js';

/** What the server makes of one request that asked it to hold (`Prefer: wait=N`). */
export interface HoldPlan {
  /** Honour it: hold, and say so with `Preference-Applied`. Otherwise answer at once, without the header. */
  apply: boolean;
  /** With a fake clock: how long the hold "lasts", ms, added to the clock before answering (the answer is then sent at once). */
  fake?: number;
  /** More headers of the answer (a `Retry-After`). */
  headers?: Record<string, string>;
}

/** One request the server saw, and what became of it. */
export interface HoldingArrival {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Real ms since the server started, when it arrived and when it was answered (undefined: never answered). */
  at: number;
  answeredAt?: number;
  status?: number;
  /** Whether the answer said `Preference-Applied`. */
  applied: boolean;
  /** The client closed it before it was answered. */
  aborted: boolean;
}

export interface HoldingServerOptions {
  /** The n-th status request's plan (from 0). @default apply every time */
  plan?: (n: number) => HoldPlan;
  /** The start's plan, when it asks for `respond-async, wait=N`. @default answer at once, without Preference-Applied */
  startPlan?: HoldPlan;
  /** A fake clock the `fake` holds advance. */
  clock?: { now: number };
  /** Called as the n-th status request arrives (to change the job later, say). */
  onPoll?: (n: number) => void;
  /** Called as the start request arrives. */
  onStart?: () => void;
}

/** A loopback job server that holds a status request until the job changes, as `Prefer: wait=N` asks (RFC 7240). */
export interface HoldingServer {
  url: string;
  arrivals: HoldingArrival[];
  /** The status requests, in order. */
  polls(): HoldingArrival[];
  /** Sets the job's status: a new version, which ends every hold. */
  change(status: string): void;
  close(): Promise<void>;
}

const waitOf = (prefer: string | string[] | undefined): number | undefined => {
  const match = /(?:^|,)\s*wait=(\d+)/i.exec(String(prefer ?? ''));
  return match ? Number(match[1]) : undefined;
};

/**
 * POST /jobs starts the job (202 and `Operation-Location: /ops/1`, or the
 * result at once when it is over within the start's hold); GET /ops/1
 * reports `{ status }` with an ETag per version, holding a request that
 * asks for it (`Prefer: wait=N`) until the version changes from the one the
 * client has (its `If-None-Match`, else the one when it arrived) or N s
 * pass; unchanged, it answers 304 to a conditional request. GET /results/1
 * is the result.
 */
export async function holdingServer(options: HoldingServerOptions = {}): Promise<HoldingServer> {
  const { plan = (): HoldPlan => ({ apply: true }), startPlan = { apply: false }, clock, onPoll, onStart } = options;
  const arrivals: HoldingArrival[] = [];
  let version = 1;
  let status = 'Running';
  const waiters = new Set<() => void>();
  let polls = 0;
  const etag = (): string => `"v${version}"`;
  /** Waits until the version is no longer `seen`, or `ms` pass. */
  const holdWhile = (seen: number, ms: number, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      if (version !== seen) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      res.on('close', done);
    });

  const server: TestServer = await startServer(async (req, res, seen) => {
    const arrival: HoldingArrival = { method: seen.method, path: seen.path, headers: seen.headers, at: seen.at, applied: false, aborted: false };
    arrivals.push(arrival);
    const began = Date.now();
    res.on('close', () => {
      if (arrival.status === undefined) arrival.aborted = true;
    });
    const answer = (code: number, body: unknown, headers: Record<string, string>): void => {
      if (res.destroyed) return;
      arrival.status = code;
      arrival.answeredAt = seen.at + (Date.now() - began);
      arrival.applied = 'preference-applied' in headers;
      if (body === undefined) {
        res.writeHead(code, { 'content-length': '0', ...headers });
        res.end();
      } else sendJson(res, code, body, headers);
    };
    const wait = waitOf(req.headers.prefer);
    if (seen.method === 'POST' && seen.path === '/jobs') {
      onStart?.();
      const applied = wait !== undefined && startPlan.apply;
      if (applied) {
        if (clock && startPlan.fake !== undefined) clock.now += startPlan.fake;
        else await holdWhile(version, wait * 1000, res);
      }
      const said = { ...(applied && { 'preference-applied': `respond-async, wait=${wait}` }), ...startPlan.headers };
      if (status === 'Succeeded') return answer(200, { result: 42 }, said);
      return answer(202, undefined, { 'operation-location': '/ops/1', ...said });
    }
    if (seen.method === 'GET' && seen.path === '/ops/1') {
      const n = polls++;
      onPoll?.(n);
      const { apply, fake, headers = {} } = plan(n);
      const applied = wait !== undefined && apply;
      const has = req.headers['if-none-match'];
      if (applied) {
        if (clock && fake !== undefined) clock.now += fake;
        // What the client has: the version its If-None-Match names, else the one it would get now.
        else await holdWhile(has === undefined ? version : has === etag() ? version : -1, wait * 1000, res);
      }
      const said = { etag: etag(), ...(applied && { 'preference-applied': `wait=${wait}` }), ...headers };
      if (has === etag()) return answer(304, undefined, said);
      return answer(200, { status, ...(status === 'Succeeded' && { resourceLocation: '/results/1' }) }, said);
    }
    if (seen.method === 'GET' && seen.path === '/results/1') return answer(200, { result: 42 }, {});
    answer(404, { error: 'no route' }, {});
  });
  return {
    url: server.url,
    arrivals,
    polls: () => arrivals.filter((a) => a.path === '/ops/1'),
    change(next) {
      status = next;
      version += 1;
      for (const wake of [...waiters]) wake();
    },
    close: () => server.close(),
  };
}
