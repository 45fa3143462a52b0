import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { createClient as createClientV4, createCluster as createClusterV4 } from 'redis-v4';

/** The clients pollite/cluster supports: each library's single-server client, and its Redis Cluster client. */
export type ClientKind = 'node-redis' | 'node-redis-v4' | 'ioredis' | 'node-redis-cluster' | 'node-redis-v4-cluster' | 'ioredis-cluster';

export const isClusterKind = (kind: ClientKind): boolean => kind.endsWith('-cluster');

/** How a test's client is set up beyond the defaults. */
export interface ClientSettings {
  /**
   * Whether the client queues commands while it is not connected: ioredis's
   * `enableOfflineQueue`, node-redis's `!disableOfflineQueue`.
   * @default true (both libraries' default)
   */
  offlineQueue?: boolean;
  /** Resolve at once, while the client is still connecting (ioredis connects by itself; node-redis's `connect()` is not awaited). */
  connecting?: boolean;
}

/** A test's client and how to close it. */
export interface TestClient {
  client: object;
  close(): Promise<void>;
}

/**
 * A client of `kind` on `url` (a cluster's: any of its nodes, or all),
 * connected unless `connecting`, with an error listener (a dropped
 * connection is part of the tests) and quick reconnects (the fault tests
 * stop and start Redis).
 */
export async function connectClient(kind: ClientKind, url: string | readonly string[], settings: ClientSettings = {}): Promise<TestClient> {
  const urls = typeof url === 'string' ? [url] : [...url];
  const { offlineQueue = true, connecting = false } = settings;
  if (kind === 'ioredis' || kind === 'ioredis-cluster') {
    const options = { retryStrategy: () => 100, maxRetriesPerRequest: 1, enableOfflineQueue: offlineQueue };
    const client =
      kind === 'ioredis'
        ? new Redis(urls[0]!, options)
        : new Cluster(
            urls.map((u) => ({ host: new URL(u).hostname, port: Number(new URL(u).port) })),
            { clusterRetryStrategy: () => 100, enableOfflineQueue: offlineQueue, redisOptions: options },
          );
    client.on('error', () => undefined);
    if (!connecting) await new Promise<void>((resolve, reject) => (client.status === 'ready' ? resolve() : client.once('ready', resolve).once('end', reject)));
    return { client, close: async () => void client.disconnect() };
  }
  const socket = { reconnectStrategy: (): number => 100 };
  const single = { socket, disableOfflineQueue: !offlineQueue };
  const cluster = { rootNodes: urls.map((u) => ({ url: u })), defaults: single };
  const client =
    kind === 'node-redis'
      ? createClient({ url: urls[0]!, ...single })
      : kind === 'node-redis-v4'
        ? createClientV4({ url: urls[0]!, ...single })
        : kind === 'node-redis-cluster'
          ? createCluster(cluster)
          : createClusterV4(cluster);
  client.on('error', () => undefined);
  const connected = (client.connect as () => Promise<unknown>)();
  if (connecting) connected.catch(() => undefined);
  else await connected;
  return {
    client,
    close: async () => {
      const c = client as { destroy?: () => unknown; disconnect: () => Promise<void> };
      if (typeof c.destroy === 'function') await c.destroy();
      else await c.disconnect().catch(() => undefined);
    },
  };
}
