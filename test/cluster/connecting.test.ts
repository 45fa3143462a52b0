import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createCluster, type ClusterStatus } from '../../src/cluster/index.js';
import { budgetKey } from '../../src/cluster/keys.js';
import { connectClient, type ClientKind, type TestClient } from './helpers/clients.js';
import { redisForTests } from './helpers/clusters.js';
import { delay } from './helpers/processes.js';
import { freePort } from './helpers/redis-server.js';

// A client handed over while it still makes its first connection (ioredis
// connects by itself from `new Redis(url)`; node-redis's `connect()` not
// awaited) is waited for, within the deadline: the process does not start
// `local`. One whose first connection fails, or hangs past the deadline,
// is `local` then, and nothing it was asked is sent late.

const { run, redis } = redisForTests();
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
});

const KINDS: ClientKind[] = ['node-redis', 'node-redis-v4', 'ioredis'];
let prefix = 0;

async function connecting(kind: ClientKind, url: string, offlineQueue = true): Promise<TestClient> {
  const client = await connectClient(kind, url, { connecting: true, offlineQueue });
  opened.push(client);
  return client;
}

/** A TCP server that takes connections and never answers: a client's first connection hangs in its handshake. */
async function silentServer(): Promise<{ url: string; received: () => string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let received = '';
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => void (received += data.toString()));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    received: () => received,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(!run)('a client still connecting', () => {
  it.each(KINDS.flatMap((kind) => [true, false].map((q): [ClientKind, boolean] => [kind, q])))(
    '%s (offline queue %s): the first operations wait for it (within the deadline), and reach Redis: no `local`',
    async (kind, offlineQueue) => {
      const { client } = await connecting(kind, redis().url, offlineQueue);
      const statuses: ClusterStatus[] = [];
      const name = `c${++prefix}`;
      const cluster = createCluster({ redis: client, prefix: 'connecting:', deadline: 2000, onStatus: (s) => statuses.push(s) });
      opened.push(cluster);
      expect(await cluster.budget({ name, capacity: 10 }).withdraw(4)).toBe(true);
      expect(statuses).toEqual([]);
      expect(cluster.connected).toBe(true);
      const admin = await createClient({ url: redis().url }).on('error', () => undefined).connect();
      expect(await admin.get(budgetKey('connecting:', name))).toBe('6');
      await admin.quit();
    },
  );

  it.each(KINDS)('%s: a first connection that fails is `local` at once, without waiting out the deadline', async (kind) => {
    const { client } = await connecting(kind, `redis://127.0.0.1:${await freePort()}`);
    const statuses: ClusterStatus[] = [];
    const cluster = createCluster({ redis: client, deadline: 5000, onStatus: (s) => statuses.push(s) });
    opened.push(cluster);
    // Refused at once by the OS: the client knows within a turn or two.
    await delay(100);
    const started = Date.now();
    expect(await cluster.budget({ capacity: 10 }).withdraw(5)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(statuses.map((s) => s.type)).toEqual(['local']);
  });

  it.each(KINDS)('%s: a first connection that hangs is waited for one deadline, then `local`; what was asked is never sent late', async (kind) => {
    const silent = await silentServer();
    opened.push(silent);
    const { client } = await connecting(kind, silent.url);
    const statuses: ClusterStatus[] = [];
    const cluster = createCluster({ redis: client, deadline: 200, recheck: 60_000, onStatus: (s) => statuses.push(s) });
    opened.push(cluster);
    const started = Date.now();
    expect(await cluster.budget({ capacity: 10 }).withdraw(5)).toBe(true);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(195);
    expect(took).toBeLessThan(1500);
    expect(statuses.map((s) => s.type)).toEqual(['local']);
    await delay(300);
    expect(silent.received()).not.toMatch(/EVAL/);
  });
});
