import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's redis-server (package `redis-server`); nothing is ever downloaded. */
export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/**
 * Whether the cluster tests can run here. Under `CI=true` a missing
 * redis-server fails the run (it must be installed); elsewhere the tests
 * are skipped, loudly.
 */
export function hasRedis(): boolean {
  if (existsSync(REDIS_SERVER)) return true;
  const message = `redis-server not found at ${REDIS_SERVER}: the pollite/cluster tests need it (Debian package redis-server; set REDIS_SERVER to another path)`;
  if (process.env.CI === 'true') throw new Error(`${message}. Under CI it must be installed.`);
  console.warn(`\n*** SKIPPED: ${message} ***\n`);
  return false;
}

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts TCP connections on `port` and answers PING. */
async function answersPing(port: number, within = 10_000): Promise<void> {
  const until = Date.now() + within;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
      socket.once('error', () => (socket.destroy(), resolve(false)));
      socket.once('timeout', () => (socket.destroy(), resolve(false)));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`redis-server did not answer on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A real redis-server of the test's own, on a free loopback port, in a temp dir, persisting nothing. */
export interface RedisServer {
  port: number;
  url: string;
  /** Kills the server (SIGKILL by default): it loses everything, as a crash would. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pollite-redis-'));
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--enable-debug-command', 'yes', '--loglevel', 'warning'];
    child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    await answersPing(port);
  };
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    async close() {
      await kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
