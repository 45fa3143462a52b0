import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireOrSkip, toolPath } from '../../helpers/tools.js';

/**
 * Whether the cluster tests can run here: Debian's redis-server (package
 * `redis-server`, `REDIS_SERVER` overrides), found by scripts/find-tools.mjs.
 * Under CI a missing one fails the test file with the reason; elsewhere the
 * tests are skipped, loudly.
 */
export const hasRedis = (): boolean => requireOrSkip('redis-server', 'the pollite/cluster tests (a real redis-server per test file)');

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
  /** Starts it again on the same port (empty: nothing was saved); nothing when it runs. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Starts a redis-server; `args` go on its command line after pollite's own (`--cluster-enabled yes`...). */
export async function startRedis(args: readonly string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pollite-redis-'));
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const own = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--enable-debug-command', 'yes', '--loglevel', 'warning'];
    const started = spawn(toolPath('redis-server'), [...own, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    child = started;
    // Never left behind: a test process that dies takes its redis-server with it.
    const orphan = (): void => void started.kill('SIGKILL');
    process.once('exit', orphan);
    started.once('exit', () => process.off('exit', orphan));
    await answersPing(port);
    if (started.exitCode !== null) throw new Error(`redis-server exited at once (port ${port} taken?)`);
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
