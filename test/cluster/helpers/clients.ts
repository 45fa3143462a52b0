import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { createClient as createClientV4 } from 'redis-v4';

/** The clients pollite/cluster supports. */
export type ClientKind = 'node-redis' | 'node-redis-v4' | 'ioredis';

/** A connected client of `kind`, with an error listener (a dropped connection is part of the tests), and how to close it. */
export async function connectClient(kind: ClientKind, url: string): Promise<{ client: object; close(): Promise<void> }> {
  // Quick reconnects: the fault tests stop and start Redis.
  const reconnectStrategy = (): number => 100;
  if (kind === 'ioredis') {
    const client = new Redis(url, { retryStrategy: () => 100, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => (client.status === 'ready' ? resolve() : client.once('ready', resolve).once('end', reject)));
    return { client, close: async () => void client.disconnect() };
  }
  const client = kind === 'node-redis' ? createClient({ url, socket: { reconnectStrategy } }) : createClientV4({ url, socket: { reconnectStrategy } });
  client.on('error', () => undefined);
  await client.connect();
  return {
    client,
    close: async () => {
      const c = client as { destroy?: () => void; disconnect: () => Promise<void> };
      if (typeof c.destroy === 'function') c.destroy();
      else await c.disconnect().catch(() => undefined);
    },
  };
}
