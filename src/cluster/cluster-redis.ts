/**
 * What pollite/cluster needs of a Redis client: commands, and pub/sub on a
 * connection of its own. `nodeRedis` and `ioRedis` make one of
 * a node-redis or ioredis client (single server or Redis Cluster);
 * implement it yourself for another client.
 */
export interface ClusterRedis {
  /**
   * Sends one command (`['EVALSHA', sha, '1', key, ...]`) and resolves with
   * its reply. Should reject at once while disconnected rather than queue
   * the command: a queued command would run late, after pollite gave up on
   * it. `signal` is aborted when pollite gives up on the command (its
   * deadline passed): a command not sent yet (waiting for a connection
   * that is still being made) must not be sent after that.
   */
  send(args: readonly string[], signal?: AbortSignal): Promise<unknown>;
  /**
   * Calls `listener` with each message published on `channel` (on a
   * subscriber connection of the adapter's own). Resolves once subscribed;
   * a subscription that fails is the adapter's to make again when it can.
   */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Stops calling `listener` for `channel`. */
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Calls `listener` when the connection drops (`false`) or is ready again (`true`); returns an unsubscribe function. */
  watch?(listener: (ready: boolean) => void): () => void;
  /** Closes what the adapter opened (its subscriber connection), never the client it was given. */
  close(): Promise<void>;
}
