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
}

/**
 * The one demo job API, web-standard (Request in, Response out), shared by
 * `npm start`, the playground and the tests.
 *
 * - `POST /jobs` with a {@link JobScript} body: 201 `{ id, url }`
 * - `GET /jobs/:id`: the job, with a strong ETag and 304 on `If-None-Match`
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

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
    new Response(JSON.stringify(body), {
      status,
      headers: {
        'content-type': 'application/json',
        'cache-control': 'no-cache',
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'ETag, Retry-After',
        ...headers,
      },
    });

  const failure = (m: Pick<Misbehaviour, 'kind' | 'retryAfter'>, key: string): Response => {
    const retryAfter = m.kind === 'rate-limit' ? (m.retryAfter ?? 1) : m.retryAfter;
    if (retryAfter !== undefined) paceUntil.set(key, now() + retryAfter * 1000);
    const status = m.kind === 'outage' ? 503 : m.kind === 'rate-limit' ? 429 : 500;
    return json(status, { error: m.kind }, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
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

  const etagOf = (text: string): string => {
    let hash = 2166136261;
    for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
    return `"${(hash >>> 0).toString(16)}"`;
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
    const text = JSON.stringify(viewJob(job, now()));
    const etag = etagOf(text);
    const ifNoneMatch = request.headers.get('if-none-match');
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      counters.notModified += 1;
      return new Response(null, { status: 304, headers: { etag, 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag, Retry-After' } });
    }
    counters.bytes += text.length;
    return json(200, JSON.parse(text), { etag });
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const parts = url.pathname.split('/').filter(Boolean);
    if (request.method === 'OPTIONS') {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': 'If-None-Match, Content-Type',
          'access-control-max-age': '600',
        },
      });
    }
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
    if (parts[0] === 'jobs' && parts[1] && parts.length === 2 && request.method === 'GET') return getJob(request, parts[1]);
    if (parts[0] === 'jobs' && parts[1] && parts[2] === 'stats') {
      const counters = stats.get(parts[1]);
      return counters ? json(200, counters) : json(404, { error: 'no such job' });
    }
    return json(404, { error: 'not found' });
  };

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
