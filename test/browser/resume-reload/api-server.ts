import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server.js';

// The server of the reload tests: a job started by a POST, watched at its
// monitor, its result at a third URL, on 127.0.0.1. It records every
// request with the time it arrived and every wait it asked for, so a test
// asserts what the server saw: how many starts, and whether any request
// came before the server said it might (its gap after the answer that
// asked, against the wait asked).

/** One request to the API, as the server saw it. */
export interface Logged {
  method: string;
  path: string;
  /** Epoch ms it arrived. */
  at: number;
  headers: Record<string, string | string[] | undefined>;
  /** Epoch ms before which the server had asked for nothing (the last Retry-After it sent, from when it sent it); 0 when none. */
  notBefore: number;
  /** ms since the answer that asked for the last wait, when one did. */
  gap: number | undefined;
  /** The wait that answer asked, ms. */
  asked: number | undefined;
  /** Epoch ms its answer left, once it did. */
  answered?: number;
}

/** One scripted answer of the monitor: `hold` keeps the request open until the client goes (a reload), else a JSON body with an optional Retry-After (s) and headers. */
export type MonitorAnswer = 'hold' | { body: unknown; retryAfter?: number; headers?: Record<string, string> };

export interface JobServer {
  url: string;
  /** The start URL (POST), the monitor and the result, as paths. */
  paths: { start: string; monitor: string; result: string };
  /** Every request to the API so far, in order. */
  log(): Logged[];
  /** Requests to `path` (all methods), or of `method` to it. */
  requests(path: string, method?: string): Logged[];
  /** Requests the client closed before an answer (a reload during a request). */
  aborted(): Logged[];
  /** Requests that came before the server's wait was over: must stay empty. */
  early(): Logged[];
  /** Epoch ms before which the server has asked for nothing, now. */
  notBefore(): number;
  close(): Promise<void>;
}

export interface JobScript {
  /** A name of this job's own, in its paths, so nothing of another test can count. */
  name: string;
  /** The start's answer: a 202 naming the monitor (Operation-Location, Location and the body's `monitor`), with this Retry-After, s. */
  startRetryAfter?: number;
  /** Starts held open (a reload during the start request) before one is answered. @default 0 */
  holdStarts?: number;
  /** The monitor's answers, in order (the last repeats). */
  monitor: MonitorAnswer[];
  /** The result's body. */
  result: unknown;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/**
 * Serves `files` (path → [content type, body]) or the files of `pageDir`,
 * and the jobs given to `job()`: each job's start, monitor and result
 * under /api/<name>/.
 */
export async function startJobServer(pages: { dir?: string; files?: Record<string, [string, string]> }): Promise<JobServer & { job(script: JobScript): JobServer }> {
  const log: Logged[] = [];
  const aborted: Logged[] = [];
  const jobs = new Map<string, { script: JobScript; served: number; starts: number }>();
  let notBefore = 0;
  let askedAt: number | undefined;
  let asked: number | undefined;

  const answer = (entry: Logged, res: ServerResponse, status: number, body: unknown, headers: Record<string, string>, retryAfter?: number): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(text)),
      ...(retryAfter !== undefined && { 'retry-after': String(retryAfter) }),
      ...headers,
    });
    // The wait starts when the answer leaves: the client cannot have it earlier.
    if (retryAfter !== undefined) {
      askedAt = Date.now();
      asked = retryAfter * 1000;
      notBefore = Math.max(notBefore, askedAt + asked);
    }
    entry.answered = Date.now();
    res.end(text);
  };

  const server: TestServer = await startServer((req, res, seen) => {
    const path = seen.path.split('?')[0]!;
    const match = /^\/api\/([^/]+)\/(start|monitor|result)$/.exec(path);
    if (match) {
      const at = Date.now();
      const entry: Logged = { method: seen.method, path, at, headers: seen.headers, notBefore, gap: askedAt === undefined ? undefined : at - askedAt, asked };
      log.push(entry);
      const job = jobs.get(match[1]!);
      if (!job) return void res.writeHead(404).end();
      const { script } = job;
      const base = `/api/${script.name}`;
      if (match[2] === 'start' && seen.method === 'POST') {
        job.starts += 1;
        if (job.starts <= (script.holdStarts ?? 0)) return void res.on('close', () => res.writableEnded || aborted.push(entry));
        const monitor = `${base}/monitor`;
        return answer(entry, res, 202, { monitor }, { 'operation-location': monitor, location: monitor }, script.startRetryAfter);
      }
      if (match[2] === 'monitor' && seen.method === 'GET') {
        const next = script.monitor[Math.min(job.served, script.monitor.length - 1)]!;
        job.served += 1;
        if (next === 'hold') return void res.on('close', () => res.writableEnded || aborted.push(entry));
        return answer(entry, res, 200, next.body, next.headers ?? {}, next.retryAfter);
      }
      if (match[2] === 'result' && seen.method === 'GET') return answer(entry, res, 200, script.result, {});
      return void res.writeHead(405).end();
    }
    const file = pages.files?.[path === '/' ? '/index.html' : path];
    if (file) return void res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
    if (pages.dir) {
      const name = normalize(join(pages.dir, path === '/' ? 'index.html' : path));
      if (name.startsWith(pages.dir)) {
        try {
          const body = readFileSync(name);
          return void res.writeHead(200, { 'content-type': TYPES[extname(name)] ?? 'application/octet-stream' }).end(body);
        } catch {
          // a 404 below
        }
      }
    }
    res.writeHead(404).end();
  });

  const view = (only?: string): JobServer => {
    const mine = (entry: Logged): boolean => only === undefined || entry.path.startsWith(`/api/${only}/`);
    return {
      url: server.url,
      paths: { start: `/api/${only}/start`, monitor: `/api/${only}/monitor`, result: `/api/${only}/result` },
      log: () => log.filter(mine),
      requests: (path, method) => log.filter((e) => e.path === path && (method === undefined || e.method === method)),
      aborted: () => aborted.filter(mine),
      early: () => log.filter((e) => mine(e) && e.at < e.notBefore),
      notBefore: () => notBefore,
      close: () => server.close(),
    };
  };
  return {
    ...view(),
    job(script: JobScript): JobServer {
      jobs.set(script.name, { script, served: 0, starts: 0 });
      // A new job starts with no wait asked: the server's waits are per job, one job at a time.
      notBefore = 0;
      askedAt = undefined;
      asked = undefined;
      return view(script.name);
    },
  };
}
