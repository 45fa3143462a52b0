import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { sendJson, startServer, type SeenRequest, type TestServer } from '../../helpers/server.js';

/** One scripted answer of the API. */
export type Answer = (res: ServerResponse, seen: SeenRequest) => void;

/** When each API request arrived, and when its answer left (once `json` sent one), epoch ms. */
const arrived = new WeakMap<SeenRequest, number>();
const answered = new WeakMap<SeenRequest, number>();

export const json =
  (status: number, body: unknown = {}, headers: Record<string, string> = {}): Answer =>
  (res, seen) => {
    // Before the answer is written: the client cannot have it, nor any wait it asks for, earlier.
    answered.set(seen, Date.now());
    sendJson(res, status, body, { 'cache-control': 'no-store', ...headers });
  };

/** The page and a scripted JSON API under /api/, on 127.0.0.1, recording every request and every one the client gave up on. */
export interface ApiServer {
  url: string;
  /** The answers to `path`, in order (the last repeats). */
  script(path: string, answers: Answer[]): void;
  /** Requests to `path` the server received. */
  requests(path: string): SeenRequest[];
  /** Requests to `path` whose connection the client closed before an answer. */
  aborted(path: string): SeenRequest[];
  /** An answer that never comes: the request stays open until the client aborts it. */
  hold: Answer;
  /** When `request` arrived, and when its answer left (a `json` one), epoch ms: a wait the client kept, as the server saw it. */
  timing(request: SeenRequest): { arrived: number; answered: number | undefined };
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

export async function startApiServer(pageDir: string): Promise<ApiServer> {
  const scripts = new Map<string, Answer[]>();
  const aborted: SeenRequest[] = [];
  const served = new Map<string, number>();
  const server: TestServer = await startServer((_req, res, seen) => {
    const path = seen.path.split('?')[0]!;
    if (path.startsWith('/api/')) {
      arrived.set(seen, Date.now());
      const script = scripts.get(path) ?? [json(404)];
      const n = served.get(path) ?? 0;
      served.set(path, n + 1);
      script[Math.min(n, script.length - 1)]!(res, seen);
      return;
    }
    const file = normalize(join(pageDir, path === '/' ? 'index.html' : path));
    if (!file.startsWith(pageDir)) return void res.writeHead(403).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return {
    url: server.url,
    script: (path, answers) => void scripts.set(path, answers),
    requests: (path) => server.requests.filter((r) => r.path === path),
    aborted: (path) => aborted.filter((r) => r.path === path),
    hold: (res, seen) => void res.on('close', () => res.writableEnded || aborted.push(seen)),
    timing: (request) => ({ arrived: arrived.get(request)!, answered: answered.get(request) }),
    close: () => server.close(),
  };
}
