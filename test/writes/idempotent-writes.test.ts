import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchWithRetry } from '../../src/index.js';
import { mulberry32 } from '../../src/simulator/prng.js';

// Writes are never duplicated: 200 POSTs through a server that performs the
// write and then drops the connection 30% of the time. With idempotencyKey
// every call resolves and the server's own record shows each write once.

interface WriteServer {
  url: string;
  /** Writes performed, in order, by key. */
  writes: Array<{ key: string | null; body: string; id: number }>;
  requests: number;
  dropped: number;
  close(): Promise<void>;
}

async function startWriteServer(dropRate: number, seed: number): Promise<WriteServer & { server: Server }> {
  // The simulator's seeded generator: every run drops the same connections.
  const random = mulberry32(seed);
  const byKey = new Map<string, { id: number; body: string }>();
  const state: WriteServer & { server?: Server } = { url: '', writes: [], requests: 0, dropped: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests += 1;
      const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
      const body = Buffer.concat(chunks).toString('utf8');
      let order = key === null ? undefined : byKey.get(key);
      let status = 200;
      if (!order) {
        // Perform the write, as a real API would, before answering.
        order = { id: state.writes.length + 1, body };
        state.writes.push({ key, body, id: order.id });
        if (key !== null) byKey.set(key, order);
        status = 201;
      } else if (order.body !== body) {
        res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"key reused with another body"}');
        return;
      }
      if (random() < dropRate) {
        // The write happened; the client never hears about it.
        state.dropped += 1;
        req.socket.destroy();
        return;
      }
      const text = JSON.stringify({ id: order.id, body: JSON.parse(order.body) as unknown });
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state as WriteServer & { server: Server };
}

let server: WriteServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs `task(0..n-1)` with at most `limit` at once, results in order. */
async function pool<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

const post = (url: string, n: number, retry: NonNullable<Parameters<typeof fetchWithRetry>[1]>['retry']) =>
  fetchWithRetry(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order: n }), retry });

describe('writes through a server that drops 30% of connections after writing', () => {
  it('200 POSTs with idempotencyKey: true: every call resolves, every write happened exactly once', async () => {
    server = await startWriteServer(0.3, 9);
    const N = 200;
    const responses = await pool(N, 16, (n) => post(server!.url, n, { idempotencyKey: true, retries: 10, backoff: () => 0 }));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, json: (await r.json()) as { id: number; body: { order: number } } })));

    // Every call resolved with its own order.
    expect(bodies.every((b) => b.status === 201 || b.status === 200)).toBe(true);
    expect(bodies.map((b) => b.json.body.order)).toEqual(Array.from({ length: N }, (_, n) => n));
    // The server's own record: N writes, one per call, one per key, no order twice.
    expect(server.writes).toHaveLength(N);
    expect(new Set(server.writes.map((w) => w.key)).size).toBe(N);
    expect(server.writes.map((w) => (JSON.parse(w.body) as { order: number }).order).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, n) => n));
    // Each call got the id of the one write made for it, whether it heard 201 or a replayed 200.
    const idByOrder = new Map(server.writes.map((w) => [(JSON.parse(w.body) as { order: number }).order, w.id]));
    expect(bodies.every((b) => idByOrder.get(b.json.body.order) === b.json.id)).toBe(true);
    // The drops really happened, and were retried.
    expect(server.dropped).toBeGreaterThan(N * 0.2);
    expect(server.requests).toBe(N + server.dropped);
    expect(bodies.filter((b) => b.status === 200).length).toBeGreaterThan(0);
  }, 60_000);

  it('the same POSTs without a key are sent once: drops reject, nothing is written twice', async () => {
    server = await startWriteServer(0.3, 9);
    const N = 200;
    const settled = await pool(N, 16, (n) =>
      post(server!.url, n, { retries: 10, backoff: () => 0 }).then(
        (value): PromiseSettledResult<Response> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<Response> => ({ status: 'rejected', reason }),
      ),
    );
    const failed = settled.filter((s) => s.status === 'rejected');
    expect(server.requests).toBe(N);
    expect(server.writes).toHaveLength(N);
    expect(failed).toHaveLength(server.dropped);
    expect(failed.length).toBeGreaterThan(N * 0.2);
    for (const s of failed) expect((s as PromiseRejectedResult).reason).toBeInstanceOf(TypeError);
    for (const s of settled) if (s.status === 'fulfilled') await s.value.body?.cancel();
  }, 60_000);
});
