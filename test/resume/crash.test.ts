// A worker process polling an operation is SIGKILLed during a Retry-After wait, and a new process started with
// the same fileStore: the server saw one start in all, no request earlier than it asked, and the result went
// out once. Real processes, a real node:http server, real time; every assertion is on what the server saw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/resume/index.js';
import { fileStore } from '../../src/resume/node.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { startWorker, type Report } from './helpers/workers.js';

let server: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** What the server saw, in real epoch ms: each request's arrival, and the waits it asked for (until when). */
interface Seen {
  line: string;
  arrived: number;
  key: string | undefined;
  /** Epoch ms before which the answer asked for nothing more (its Retry-After from when it was sent). */
  askedUntil?: number;
}

/** An operation server: a 202 with `startWait` s of Retry-After, a Running answer with `pollWait` s, then Succeeded, then the result. */
async function operationServer(startWait: number, pollWait: number): Promise<{ server: TestServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  let polls = 0;
  const server = await startServer((_req, res, request) => {
    const entry: Seen = { line: `${request.method} ${request.path}`, arrived: Date.now(), key: request.headers['idempotency-key'] as string | undefined };
    seen.push(entry);
    const asking = (seconds: number): Record<string, string> => ((entry.askedUntil = Date.now() + seconds * 1000), { 'retry-after': String(seconds) });
    if (entry.line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1', ...asking(startWait) });
    if (entry.line === 'GET /ops/1') {
      polls += 1;
      return polls === 1 ? sendJson(res, 200, { status: 'Running' }, asking(pollWait)) : sendJson(res, 200, { status: 'Succeeded', resourceLocation: '/reports/1' });
    }
    if (entry.line === 'GET /reports/1') return sendJson(res, 200, { month: '2025-01', rows: 42 });
    return sendJson(res, 404, {});
  });
  return { server, seen };
}

/** No request came before the time the answer before it asked for. */
function expectNoEarlyRequest(seen: Seen[]): void {
  for (let i = 1; i < seen.length; i += 1) {
    const asked = seen[i - 1]!.askedUntil;
    if (asked !== undefined) expect(seen[i]!.arrived, `${seen[i]!.line} came before the wait ${seen[i - 1]!.line} asked for`).toBeGreaterThanOrEqual(asked);
  }
}

const settled = (report: Report): boolean => report.type === 'settled';
const KEY = 'report:2025-01';

describe('a worker killed during a Retry-After wait, a new one started with the same fileStore', () => {
  it('killed during the monitor’s Retry-After: one start in all, the poll after the kill no sooner than asked, the result once', async () => {
    const made = await operationServer(1, 3);
    server = made.server;
    const { seen } = made;
    dir = mkdtempSync(join(tmpdir(), 'pollite-resume-'));
    const store = fileStore(dir);
    const start = `${server.url}/reports`;

    const first = await startWorker(start, dir, KEY);
    // The wait after the Running answer: its 3 s Retry-After (spread up to 20 % above), counted from the answer's
    // arrival, so a few ms under 3000 on a busy machine; the start's 1 s wait is the only other one.
    await first.next((r) => r.type === 'event' && r.event.type === 'wait' && (r.event.delay ?? 0) >= 2500);
    // Killed once that wait is in the store, and well before it ends.
    for (;;) {
      const text = await store.get(KEY);
      if (text && (readCheckpoint(text, KEY).notBefore ?? 0) >= seen[1]!.askedUntil!) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await first.kill();
    expect(seen.map((s) => s.line)).toEqual(['POST /reports', 'GET /ops/1']);

    const second = await startWorker(start, dir, KEY);
    const result = await second.next(settled);
    await second.exited;
    expect(result).toEqual({ type: 'settled', outcome: 'resolved', value: { month: '2025-01', rows: 42 } });
    expect(first.reports.filter(settled)).toEqual([]);
    expect(second.reports.filter(settled)).toHaveLength(1);
    expect(seen.map((s) => s.line)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    expectNoEarlyRequest(seen);
    expect(seen[2]!.arrived).toBeGreaterThanOrEqual(seen[1]!.askedUntil!);
    expect(await store.get(KEY)).toBeUndefined();
  }, 30_000);

  it('killed during the start answer’s Retry-After: no second start, the first poll no sooner than the start’s answer asked', async () => {
    const made = await operationServer(2, 1);
    server = made.server;
    const { seen } = made;
    dir = mkdtempSync(join(tmpdir(), 'pollite-resume-'));
    const store = fileStore(dir);
    const start = `${server.url}/reports`;

    const first = await startWorker(start, dir, KEY);
    // The start answer's 2 s Retry-After, counted from its arrival: 1998 ms when reading it took 2 ms (CI did).
    await first.next((r) => r.type === 'event' && r.event.type === 'wait' && (r.event.delay ?? 0) >= 1500);
    for (;;) {
      const text = await store.get(KEY);
      if (text && readCheckpoint(text, KEY).url !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await first.kill();
    expect(seen.map((s) => s.line)).toEqual(['POST /reports']);

    const second = await startWorker(start, dir, KEY);
    expect(await second.next(settled)).toMatchObject({ outcome: 'resolved', value: { rows: 42 } });
    await second.exited;
    expect(seen.filter((s) => s.line === 'POST /reports')).toHaveLength(1);
    expect(seen[1]!.line).toBe('GET /ops/1');
    expectNoEarlyRequest(seen);
    expect(await store.get(KEY)).toBeUndefined();
  }, 30_000);
});
