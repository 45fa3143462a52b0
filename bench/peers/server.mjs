// The peer benchmark's API: real node:http servers on 127.0.0.1, run in their
// own process so the clients' CPU does not slow them. One job, polled at
// /<library>/job?client=<n>; client n talks to port n of `ports` (its own
// origin, as each of a fleet's browsers is its own realm), or all clients to
// the first port (PEERS_ONE_ORIGIN). The server scripts the scenario on its
// own clock and counts, per library, what it received and what it answered;
// per client, when its first request into the outage came, when it first got
// a 2xx or 304 after the outage, and when it was first told "done".
import { createServer } from 'node:http';

let scenario;
let started = 0;
let stats = new Map();

const now = () => performance.now() - started;

function statsFor(library) {
  let s = stats.get(library);
  if (!s) {
    s = { requests: 0, duringOutage: 0, ignoredRetryAfter: 0, duringLoad: 0, ignoredPollInterval: 0, conditional: 0, bytes: 0, statuses: {}, perSecond: [], clients: {}, limiter: { second: -1, count: 0 } };
    stats.set(library, s);
  }
  return s;
}

function body(status, bytes) {
  const bare = JSON.stringify({ status, pad: '' });
  return JSON.stringify({ status, pad: 'x'.repeat(Math.max(0, bytes - bare.length)) });
}

function handle(req, res) {
  const t = now();
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const library = url.pathname.split('/')[1] || '?';
  const client = url.searchParams.get('client') ?? '?';
  const s = statsFor(library);
  // Per client: notBefore (the Retry-After it was given, as an epoch on this clock), and its milestones.
  const state = (s.clients[client] ??= { notBefore: 0, pollNotBefore: 0, firstInOutage: null, recovered: null, toldDone: null });
  s.requests += 1;
  const second = Math.floor(t / 1000);
  s.perSecond[second] = (s.perSecond[second] ?? 0) + 1;
  if (req.headers['if-none-match']) s.conditional += 1;
  // 10 ms of grace for timer granularity: an honest client waits the full Retry-After after receiving it.
  if (t < state.notBefore - 10) s.ignoredRetryAfter += 1;
  // The same grace for X-Poll-Interval: the next poll no sooner than the interval the last 2xx or 304 gave.
  if (t < state.pollNotBefore - 10) s.ignoredPollInterval += 1;
  const send = (status, headers, text = '') => {
    s.statuses[status] = (s.statuses[status] ?? 0) + 1;
    const retryAfter = headers['retry-after'];
    state.notBefore = retryAfter === undefined ? 0 : t + Number(retryAfter) * 1000;
    const pollInterval = headers['x-poll-interval'];
    state.pollNotBefore = pollInterval === undefined ? 0 : t + Number(pollInterval) * 1000;
    const all = { ...headers, 'content-length': Buffer.byteLength(text) };
    // Status line and headers as sent (approximately: the date and connection headers are left out for every library alike).
    s.bytes += Buffer.byteLength(text) + Object.entries(all).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 17);
    res.writeHead(status, all);
    res.end(text);
  };
  const { outage, rateLimit, pollInterval, jobDoneAt, bodyBytes } = scenario;
  // GitHub's way: X-Poll-Interval on every 2xx and 304, raised while the server is under load.
  const loaded = pollInterval && t >= pollInterval.start && t < pollInterval.end;
  if (loaded) s.duringLoad += 1;
  const paced = pollInterval ? { 'x-poll-interval': String(loaded ? pollInterval.seconds : 1) } : {};
  if (outage && t >= outage.start && t < outage.end) {
    s.duringOutage += 1;
    state.firstInOutage ??= t;
    return send(503, outage.retryAfter ? { 'retry-after': String(outage.retryAfter) } : {});
  }
  if (rateLimit && t >= rateLimit.start && t < rateLimit.end) {
    // A fixed one-second window per library, as express-rate-limit and most gateways count.
    if (s.limiter.second !== second) s.limiter = { second, count: 0 };
    if (s.limiter.count >= rateLimit.rps) return send(429, { 'retry-after': String(rateLimit.retryAfter) });
    s.limiter.count += 1;
  }
  if (outage && t >= outage.end) state.recovered ??= t;
  const done = t >= jobDoneAt;
  if (done) state.toldDone ??= t;
  const etag = done ? '"done"' : '"running"';
  if (req.headers['if-none-match'] === etag) return send(304, { etag, ...paced });
  send(200, { 'content-type': 'application/json', etag, ...paced }, body(done ? 'done' : 'running', bodyBytes));
}

const servers = [];

process.on('message', (message) => {
  if (message.type === 'listen') {
    // One server per client origin; every one is the same API.
    let listening = 0;
    for (let i = 0; i < message.origins; i += 1) {
      const server = createServer(handle);
      server.keepAliveTimeout = 5000;
      servers.push(server);
      server.listen(0, '127.0.0.1', () => {
        listening += 1;
        if (listening === message.origins) process.send({ type: 'listening', ports: servers.map((x) => x.address().port) });
      });
    }
  } else if (message.type === 'start') {
    scenario = message.scenario;
    stats = new Map();
    started = performance.now();
    process.send({ type: 'started' });
  } else if (message.type === 'stats') {
    process.send({ type: 'stats', stats: Object.fromEntries([...stats].map(([k, { limiter: _, ...v }]) => [k, v])) });
  } else if (message.type === 'close') {
    let open = servers.length;
    for (const server of servers) {
      server.closeAllConnections();
      server.close(() => (open -= 1) === 0 && process.exit(0));
    }
  }
});

process.send({ type: 'ready' });
