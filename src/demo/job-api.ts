import { jsonWithETag, pollingCors, retryLater, type PollingCorsOptions, type WebHandler } from '../server/index.js';
import { activeMisbehaviour, viewJob, type Job, type JobScript, type Misbehaviour } from './job-model.js';

/** Counters the demo API keeps, for tables and tests. */
export interface DemoStats {
  requests: number;
  notModified: number;
  errors: number;
  bytes: number;
  /** Requests that arrived while the server had told the client (by Retry-After) to wait. */
  ignoredRetryAfter: number;
}

/** Misbehaviour applied to every job route right now (the playground's switches). */
export interface GlobalControls {
  outage?: { retryAfter?: number } | undefined;
  rateLimit?: { perSecond: number; retryAfter?: number } | undefined;
  slow?: { delay: number } | undefined;
  errors?: boolean | undefined;
}

export interface DemoApiOptions {
  /** Clock, epoch ms. @default Date.now */
  now?: () => number;
  /** Delay used for slow answers. @default setTimeout-based */
  delay?: (ms: number) => Promise<void>;
  /**
   * CORS for pages on other origins:
   * - {@link PollingCorsOptions}: `pollingCors`, so pages read ETag and Retry-After;
   * - `'origin-only'`: only `Access-Control-Allow-Origin: *`, as many APIs do,
   *   which leaves pages blind to both headers (the silent fallback);
   * - `false`: no CORS headers at all.
   * @default { origin: '*', allowHeaders: ['Content-Type'] }
   */
  cors?: PollingCorsOptions | 'origin-only' | false;
}

/** The demo's CORS layer, from {@link DemoApiOptions.cors}. */
function withCors(cors: DemoApiOptions['cors'], handler: WebHandler): WebHandler {
  if (cors === false) return handler;
  if (cors === 'origin-only') {
    return async (request) => {
      const response = await handler(request);
      const headers = new Headers(response.headers);
      headers.set('access-control-allow-origin', '*');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    };
  }
  return pollingCors(cors ?? { origin: '*', allowHeaders: ['Content-Type'] })(handler);
}

/**
 * The one demo job API, web-standard (Request in, Response out), shared by
 * `npm start`, the playground and the tests.
 *
 * - `POST /jobs` with a {@link JobScript} body: 201 `{ id, url }`
 * - `GET /jobs/:id`: the job, with a strong ETag and 304 on `If-None-Match`
 *   (`jsonWithETag`); 503 and 429 carry Retry-After (`retryLater`); every
 *   answer passes through `pollingCors` unless `cors` says otherwise
 * - `GET /jobs/:id/stats`: counters for that job
 * - `GET /health`: 200 `{ ok: true }`
 * - `GET|POST /control`: read or set {@link GlobalControls}
 */
export function createDemoApi(options: DemoApiOptions = {}) {
  const now = options.now ?? (() => Date.now());
  const delay = options.delay ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const jobs = new Map<string, Job>();
  const stats = new Map<string, DemoStats>();
  const paceUntil = new Map<string, number>();
  let controls: GlobalControls = {};
  let nextId = 1;
  let window = { second: 0, count: 0 };

  const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-cache' };
  const json = (status: number, body: unknown): Response =>
    new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });

  const failure = (m: Pick<Misbehaviour, 'kind' | 'retryAfter'>, key: string): Response => {
    const retryAfter = m.kind === 'rate-limit' ? (m.retryAfter ?? 1) : m.retryAfter;
    const status = m.kind === 'outage' ? 503 : m.kind === 'rate-limit' ? 429 : 500;
    if (retryAfter === undefined || status === 500) return json(status, { error: m.kind });
    paceUntil.set(key, now() + Math.ceil(retryAfter) * 1000);
    return retryLater(status as 429 | 503, retryAfter, { headers: JSON_HEADERS, body: JSON.stringify({ error: m.kind }) });
  };

  const createJob = (script: JobScript = {}): Job => {
    const id = String(nextId++);
    const job: Job = {
      id,
      createdAt: now(),
      script: { duration: 10_000, outcome: 'done', step: 10, misbehaviour: [], ...script },
    };
    jobs.set(id, job);
    stats.set(id, { requests: 0, notModified: 0, errors: 0, bytes: 0, ignoredRetryAfter: 0 });
    return job;
  };

  const getJob = async (request: Request, id: string): Promise<Response> => {
    const job = jobs.get(id);
    if (!job) return json(404, { error: 'no such job' });
    const counters = stats.get(id)!;
    counters.requests += 1;
    const key = `job:${id}`;
    if ((paceUntil.get(key) ?? 0) > now()) counters.ignoredRetryAfter += 1;
    const second = Math.floor(now() / 1000);
    if (window.second !== second) window = { second, count: 0 };
    window.count += 1;
    const scripted = activeMisbehaviour(job, now());
    const global: Misbehaviour | undefined = controls.outage
      ? { from: 0, to: 0, kind: 'outage', ...(controls.outage.retryAfter === undefined ? {} : { retryAfter: controls.outage.retryAfter }) }
      : controls.errors
        ? { from: 0, to: 0, kind: 'errors' }
        : controls.rateLimit && window.count > controls.rateLimit.perSecond
          ? { from: 0, to: 0, kind: 'rate-limit', retryAfter: controls.rateLimit.retryAfter ?? 1 }
          : undefined;
    const slowBy = controls.slow?.delay ?? (scripted?.kind === 'slow' ? (scripted.delay ?? 1500) : 0);
    if (slowBy > 0) await delay(slowBy);
    const trouble = global ?? (scripted && scripted.kind !== 'slow' ? scripted : undefined);
    if (trouble) {
      counters.errors += 1;
      return failure(trouble, key);
    }
    const view = viewJob(job, now());
    const response = await jsonWithETag(request, view);
    if (response.status === 304) counters.notModified += 1;
    else counters.bytes += JSON.stringify(view).length;
    return response;
  };

  const routes = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const parts = url.pathname.split('/').filter(Boolean);
    // CORS preflights are answered by the CORS layer; a plain OPTIONS learns what is allowed.
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow: 'GET, HEAD, POST, OPTIONS' } });
    if (parts[0] === 'health') return json(200, { ok: true });
    if (parts[0] === 'control') {
      if (request.method === 'POST') controls = (await request.json()) as GlobalControls;
      return json(200, controls);
    }
    if (parts[0] === 'jobs' && parts.length === 1 && request.method === 'POST') {
      const text = await request.text();
      const job = createJob(text ? (JSON.parse(text) as JobScript) : {});
      return json(201, { id: job.id, url: `/jobs/${job.id}` });
    }
    if (parts[0] === 'jobs' && parts[1] && parts.length === 2 && (request.method === 'GET' || request.method === 'HEAD')) return getJob(request, parts[1]);
    if (parts[0] === 'jobs' && parts[1] && parts[2] === 'stats') {
      const counters = stats.get(parts[1]);
      return counters ? json(200, counters) : json(404, { error: 'no such job' });
    }
    return json(404, { error: 'not found' });
  };

  const handle = withCors(options.cors, routes) as (request: Request) => Promise<Response>;

  return {
    handle,
    createJob,
    stats: (id: string): DemoStats | undefined => stats.get(id),
    setControls: (next: GlobalControls): void => {
      controls = next;
    },
  };
}

export type DemoApi = ReturnType<typeof createDemoApi>;
