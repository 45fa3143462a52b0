// The peer benchmark's API: a real node:http server on 127.0.0.1, run in its
// own process so the clients' CPU does not slow it. Every client polls
// /<library>/<client>; the server scripts the scenario on its own clock and
// counts, per library, what it received: requests, requests during the
// outage, requests that came before the Retry-After it had sent that client,
// bytes sent, and requests per second.
import { createServer } from 'node:http';

let scenario;
let started = 0;
let stats = new Map();
const clients = new Map();

const now = () => performance.now() - started;

function statsFor(library) {
  let s = stats.get(library);
  if (!s) {
    s = { requests: 0, duringOutage: 0, ignoredRetryAfter: 0, bytes: 0, statuses: {}, perSecond: [], limiter: { second: -1, count: 0 } };
    stats.set(library, s);
  }
  return s;
}

function body(status, bytes) {
  const bare = JSON.stringify({ status, pad: '' });
  return JSON.stringify({ status, pad: 'x'.repeat(Math.max(0, bytes - bare.length)) });
}

const server = createServer((req, res) => {
  const t = now();
  const [, library = '?', client = '?'] = (req.url ?? '').split('/');
  const s = statsFor(library);
  const key = `${library}/${client}`;
  s.requests += 1;
  const second = Math.floor(t / 1000);
  s.perSecond[second] = (s.perSecond[second] ?? 0) + 1;
  const state = clients.get(key) ?? { notBefore: 0 };
  clients.set(key, state);
  // 10 ms of grace for timer granularity: an honest client waits the full Retry-After after receiving it.
  if (t < state.notBefore - 10) s.ignoredRetryAfter += 1;
  const send = (status, headers, text = '') => {
    s.statuses[status] = (s.statuses[status] ?? 0) + 1;
    const retryAfter = headers['retry-after'];
    state.notBefore = retryAfter === undefined ? 0 : t + Number(retryAfter) * 1000;
    const all = { ...headers, 'content-length': Buffer.byteLength(text) };
    s.bytes += Buffer.byteLength(text) + Object.entries(all).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 17);
    res.writeHead(status, all);
    res.end(text);
  };
  const { outage, rateLimit, jobDoneAt, bodyBytes } = scenario;
  if (outage && t >= outage.start && t < outage.end) {
    s.duringOutage += 1;
    return send(503, outage.retryAfter ? { 'retry-after': String(outage.retryAfter) } : {});
  }
  if (rateLimit) {
    if (s.limiter.second !== second) s.limiter = { second, count: 0 };
    if (s.limiter.count >= rateLimit.rps) return send(429, { 'retry-after': String(rateLimit.retryAfter) });
    s.limiter.count += 1;
  }
  const done = t >= jobDoneAt;
  const etag = done ? '"done"' : '"running"';
  if (req.headers['if-none-match'] === etag) return send(304, { etag });
  send(200, { 'content-type': 'application/json', etag }, body(done ? 'done' : 'running', bodyBytes));
});
server.keepAliveTimeout = 5000;

process.on('message', (message) => {
  if (message.type === 'start') {
    scenario = message.scenario;
    stats = new Map();
    clients.clear();
    started = performance.now();
    process.send({ type: 'started' });
  } else if (message.type === 'stats') {
    process.send({ type: 'stats', stats: Object.fromEntries([...stats].map(([k, { limiter: _, ...v }]) => [k, v])) });
  } else if (message.type === 'close') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});

server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
