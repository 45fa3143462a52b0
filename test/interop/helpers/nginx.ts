import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Arrival, RecordedServer } from './recorded-server.js';

/** A port that was free a moment ago (nginx must be given a number). */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once something accepts connections on `port`, rejects when `child` exits first or 5 s pass. */
async function ready(port: number, child: ChildProcess, errors: () => string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${errors()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() - started > 5000) throw new Error(`nginx did not listen on ${port} within 5 s: ${errors()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The log line of one request (see `log_format interop`). */
interface LogLine {
  msec: string;
  rt: string;
  status: number;
  client: string;
  method: string;
  uri: string;
  inm: string;
  ims: string;
  key: string;
  etag: string;
  lm: string;
  enc: string;
  ra: string;
}

const LOG_FORMAT =
  `log_format interop escape=json '{"msec":"$msec","rt":"$request_time","status":$status,"client":"$http_x_client","method":"$request_method",` +
  `"uri":"$request_uri","inm":"$http_if_none_match","ims":"$http_if_modified_since","key":"$http_idempotency_key",` +
  `"etag":"$sent_http_etag","lm":"$sent_http_last_modified","enc":"$sent_http_content_encoding","ra":"$sent_http_retry_after"}';`;

/** Only the fields that were there: nginx logs an empty string for a header that was not. */
const present = (entries: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== ''));

function arrivalOf(line: LogLine): Arrival {
  return {
    client: line.client || undefined,
    method: line.method,
    path: line.uri,
    // $msec is when the request was logged: its arrival is $request_time before.
    at: Math.round(Number(line.msec) * 1000 - Number(line.rt) * 1000),
    request: present({ 'if-none-match': line.inm, 'if-modified-since': line.ims, 'idempotency-key': line.key }),
    status: line.status,
    headers: present({ etag: line.etag, 'last-modified': line.lm, 'content-encoding': line.enc, 'retry-after': line.ra }),
  };
}

/** The ports nginx proxies to: an app, one nothing listens on, one that accepts and never answers. */
export interface Upstreams {
  app: number;
  dead: number;
  hung: number;
}

/** nginx's configuration: static files (gzip, ETag, Last-Modified only), limit_req, an app, a dead and a hung upstream. */
function config(dir: string, root: string, port: number, upstreams: Upstreams): string {
  const app = `proxy_pass http://127.0.0.1:${upstreams.app};`;
  return `daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  types { application/json json; }
  default_type application/octet-stream;
  ${LOG_FORMAT}
  access_log ${dir}/access.log interop;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  limit_req_zone $binary_remote_addr zone=crowd503:1m rate=20r/s;
  limit_req_zone $binary_remote_addr zone=crowd429:1m rate=20r/s;
  limit_req_zone $binary_remote_addr zone=login:1m rate=6r/m;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    gzip on;
    gzip_types application/json;
    gzip_min_length 256;
    location /static/ { alias ${root}/; }
    location /static-lm/ { alias ${root}/; etag off; }
    location = /limited-503 { limit_req zone=crowd503 burst=5 nodelay; try_files /limited.json =404; }
    location = /limited-429 { limit_req zone=crowd429 burst=5 nodelay; limit_req_status 429; try_files /limited.json =404; }
    location = /login { limit_req zone=login; limit_req_status 429; add_header Retry-After 10 always; ${app} }
    location = /job { ${app} }
    location = /maintenance { add_header Retry-After 1 always; return 503; }
    location = /dead { proxy_pass http://127.0.0.1:${upstreams.dead}; }
    location = /hung { proxy_pass http://127.0.0.1:${upstreams.hung}; proxy_read_timeout 300ms; }
  }
}
`;
}

/** A running nginx, its requests read from its access log. */
export interface NginxServer extends RecordedServer {
  settle(): Promise<void>;
}

/**
 * Starts nginx (run as the current user: `-p <tmpdir> -c <conf>`, `daemon
 * off`, pid, logs and temp paths in the temp dir) on a free port of
 * 127.0.0.1, serving `root`. Tries three ports, for the one that was free
 * may have been taken since.
 */
export async function startNginx(binary: string, root: string, upstreams: Upstreams): Promise<NginxServer> {
  const dir = mkdtempSync(join(tmpdir(), 'pollite-nginx-'));
  for (const name of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, name));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    writeFileSync(join(dir, 'nginx.conf'), config(dir, root, port, upstreams));
    writeFileSync(join(dir, 'access.log'), '');
    const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await ready(port, child, () => stderr || readFileSync(join(dir, 'error.log'), 'utf8'));
    } catch (error) {
      lastError = error;
      child.kill('SIGKILL');
      continue;
    }
    const arrivals = (): Arrival[] =>
      readFileSync(join(dir, 'access.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => arrivalOf(JSON.parse(line) as LogLine));
    return {
      url: `http://127.0.0.1:${port}`,
      get arrivals() {
        return arrivals();
      },
      at: (path) => arrivals().filter((a) => a.path.split('?')[0] === path),
      settle: () => new Promise((resolve) => setTimeout(resolve, 30)),
      close: async () => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // SIGQUIT: nginx's graceful stop; the master then ends its workers.
        child.kill('SIGQUIT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
