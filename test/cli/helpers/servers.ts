import type { Socket } from 'node:net';
import { afterAll, expect } from 'vitest';
import { startServer, type Handler, type TestServer } from '../../helpers/server.js';
import { startRawServer, type RawServer } from '../../hostile/raw-server.js';
import type { CliRun } from './run-cli.js';

/**
 * Servers for a file whose tests run side by side, closed when the file
 * ends: the global onTestFinished cannot tell concurrent tests apart.
 */
export function serverPool(): { http(handler: Handler): Promise<TestServer>; raw(answer: (socket: Socket, index: number) => void): Promise<RawServer> } {
  const open = new Set<{ close(): Promise<void> }>();
  afterAll(() => Promise.all([...open].map((server) => server.close())));
  const keep = <T extends { close(): Promise<void> }>(server: T): T => {
    open.add(server);
    return server;
  };
  return {
    http: async (handler) => keep(await startServer(handler)),
    raw: async (answer) => keep(await startRawServer(answer)),
  };
}

/** The exit code, with what the bin printed when it is not the one expected. */
export const expectCode = (run: CliRun, code: number): void =>
  expect(run.code, `exit ${run.code} (signal ${run.signal}, peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MiB)\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(code);
