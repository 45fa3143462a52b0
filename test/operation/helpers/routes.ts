import type { ServerResponse } from 'node:http';
import { sendJson, startServer, type SeenRequest, type TestServer } from '../../helpers/server.js';

/** One answer of a route: the n-th request to it gets the n-th (the last repeats). */
export type Answer = (res: ServerResponse, seen: SeenRequest) => void;

/** A JSON answer. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (res) =>
    sendJson(res, status, body, headers);

/** An answer with no body. */
export const empty =
  (status: number, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, { 'content-length': '0', ...headers });
    res.end();
  };

/**
 * A loopback server of scripted routes ("METHOD /path" → answers), that
 * records every request; an unknown route is a 404.
 */
export async function routes(table: Record<string, Answer[]>): Promise<TestServer> {
  const counts = new Map<string, number>();
  return startServer((_req, res, seen) => {
    const key = `${seen.method} ${seen.path}`;
    const script = table[key];
    if (!script) return sendJson(res, 404, { error: `no route ${key}` });
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    script[Math.min(n, script.length - 1)]!(res, seen);
  });
}

/** The requests a server saw, as "METHOD /path" lines. */
export const lines = (server: TestServer): string[] => server.requests.map((r) => `${r.method} ${r.path}`);
