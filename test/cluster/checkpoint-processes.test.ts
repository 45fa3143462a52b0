// The fleet tier of pollite/resume, with real processes: a worker polling an operation under a checkpoint
// in Redis (clusterCheckpoints()) is SIGKILLed during the server's Retry-After wait; a surviving worker
// claims the orphan and finishes the call, or a new worker started with the same key resumes it. A real
// redis-server, a real node:http server, real time; every assertion is on what the server saw (with its
// own timestamps), what the workers reported and what Redis holds at the end.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkpointKeys } from '../../src/cluster/checkpoint-store.js';
import { readCheckpoint } from '../../src/resume/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { connectClient, type ClientKind, type TestClient } from './helpers/clients.js';
import { killCheckpointWorkers, startCheckpointWorker, type CheckpointReport, type CheckpointWorker } from './helpers/checkpoint-workers.js';
import { hasRedis, startRedis, type RedisServer } from './helpers/redis-server.js';

const run = hasRedis();
let redis: RedisServer | undefined;
let reader: TestClient | undefined;
let server: TestServer | undefined;
let round = 0;
beforeAll(async () => {
  if (!run) return;
  redis = await startRedis();
  reader = await connectClient('node-redis', redis.url);
});
afterAll(async () => {
  await reader?.close();
  await redis?.close();
});
afterEach(async () => {
  await killCheckpointWorkers();
  await server?.close();
  server = undefined;
  round += 1;
});

const KEY = 'report:2025-01';
/** Short enough for a test, long enough that a loaded two-core machine's late timers do not lose it. */
const LEASE = 3000;

/** What the server saw, by its own clock: each request's arrival, and until when its answer asked for nothing more. */
interface Seen {
  line: string;
  arrived: number;
  key: string | undefined;
  askedUntil?: number;
}

/** An operation server: a 202 with a 1 s Retry-After, a Running answer with 3 s, then Succeeded, then the result. */
async function operationServer(): Promise<Seen[]> {
  const seen: Seen[] = [];
  let polls = 0;
  server = await startServer((_req, res, request) => {
    const entry: Seen = { line: `${request.method} ${request.path}`, arrived: Date.now(), key: request.headers['idempotency-key'] as string | undefined };
    seen.push(entry);
    const asking = (seconds: number): Record<string, string> => ((entry.askedUntil = Date.now() + seconds * 1000), { 'retry-after': String(seconds) });
    if (entry.line === 'POST /reports') return sendJson(res, 202, { status: 'NotStarted' }, { 'operation-location': '/ops/1', ...asking(1) });
    if (entry.line === 'GET /ops/1') {
      polls += 1;
      return polls === 1 ? sendJson(res, 200, { status: 'Running' }, asking(3)) : sendJson(res, 200, { status: 'Succeeded', resourceLocation: '/reports/1' });
    }
    if (entry.line === 'GET /reports/1') return sendJson(res, 200, { month: '2025-01', rows: 42 });
    return sendJson(res, 404, {});
  });
  return seen;
}

const command = (args: string[]): Promise<unknown> => (reader!.client as { sendCommand(a: string[]): Promise<unknown> }).sendCommand(args);

/** The worker's job; every test has a prefix of its own. */
const jobOf = (client: ClientKind, mode: 'run' | 'claim') => ({ redisUrl: redis!.url, client, prefix: `fleet${round}:`, lease: LEASE, start: `${server!.url}/reports`, mode, key: KEY });

/** Starts worker A on the job and SIGKILLs it once the Running answer's 3 s wait is in Redis, well before it ends. */
async function killDuringWait(seen: Seen[], a: CheckpointWorker): Promise<number> {
  // Counted from the answer's arrival, so a few ms under 3000 on a busy machine; the start's 1 s wait is the only other one.
  await a.next((r) => r.type === 'event' && r.event.type === 'wait' && (r.event.delay ?? 0) >= 2500, 'the 3 s wait');
  const { checkpoint: hash } = await checkpointKeys(`fleet${round}:`, 'reports', KEY);
  for (;;) {
    const text = (await command(['HGET', hash, 'v'])) as string | null;
    if (text && seen[1]?.askedUntil !== undefined && (readCheckpoint(text, KEY).notBefore ?? 0) >= seen[1].askedUntil) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await a.kill();
  return Date.now();
}

/** Every request came no sooner than the answer before it asked; one start in all, with one key. */
function expectPolite(seen: Seen[]): void {
  expect(seen.map((s) => s.line)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
  for (let i = 1; i < seen.length; i += 1) {
    const asked = seen[i - 1]!.askedUntil;
    if (asked !== undefined) expect(seen[i]!.arrived, `${seen[i]!.line} came before the wait ${seen[i - 1]!.line} asked for`).toBeGreaterThanOrEqual(asked);
  }
  expect(seen[0]!.key).toMatch(/.+/);
}

/** Nothing of the call is left in Redis: its checkpoint, and its entry in the store's list of checkpoints. */
async function expectGone(): Promise<void> {
  const { index, checkpoint: hash } = await checkpointKeys(`fleet${round}:`, 'reports', KEY);
  expect(Number(await command(['EXISTS', hash]))).toBe(0);
  expect(await command(['ZSCORE', index, KEY])).toBeNull();
}

const settledOf = (workers: CheckpointWorker[]): CheckpointReport[] => workers.flatMap((w) => w.reports.filter((r) => r.type === 'settled'));
const claimsOf = (workers: CheckpointWorker[]): CheckpointReport[] => workers.flatMap((w) => w.reports.filter((r) => r.type === 'claimed'));
const RESULT = { outcome: 'resolved', value: { month: '2025-01', rows: 42 } };

describe.skipIf(!run)('clusterCheckpoints(): a worker SIGKILLed during the server’s Retry-After, its call taken over', () => {
  it.each<ClientKind>(['node-redis', 'ioredis'])('with %s, a surviving worker claims the orphan once its lease runs out and finishes it: one start, no early request, the result once, nothing left', async (client) => {
    const seen = await operationServer();
    const survivor = await startCheckpointWorker(jobOf(client, 'claim'));
    const a = await startCheckpointWorker(jobOf(client, 'run'));
    const killedAt = await killDuringWait(seen, a);
    expect(seen.map((s) => s.line)).toEqual(['POST /reports', 'GET /ops/1']);

    const result = await survivor.next((r) => r.type === 'settled', 'the result');
    expect(result).toMatchObject({ key: KEY, ...RESULT });
    const [claim] = claimsOf([survivor]);
    // Claimed after the kill, when the dead worker's lease ran out (at most one lease later, plus a loaded machine's lag).
    expect(claim!.at).toBeGreaterThanOrEqual(killedAt);
    expectPolite(seen);
    expect(settledOf([a, survivor])).toHaveLength(1);
    expect(claimsOf([survivor])).toHaveLength(1);
    await expectGone();
  }, 60_000);

  it('two surviving workers (node-redis and ioredis) race to claim the orphan: exactly one wins, and the call is finished once', async () => {
    const seen = await operationServer();
    const survivors = [await startCheckpointWorker(jobOf('node-redis', 'claim')), await startCheckpointWorker(jobOf('ioredis', 'claim'))];
    const a = await startCheckpointWorker(jobOf('node-redis', 'run'));
    await killDuringWait(seen, a);
    await Promise.race(survivors.map((s) => s.next((r) => r.type === 'settled', 'the result')));
    // Long enough for a second claim, had one been possible: two more of the survivors' rounds of orphans() and then some.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(claimsOf(survivors)).toHaveLength(1);
    expect(settledOf([a, ...survivors])).toEqual([expect.objectContaining({ key: KEY, ...RESULT })]);
    expectPolite(seen);
    await expectGone();
  }, 60_000);

  it('a new worker started with the same key (no claim) waits out the dead worker’s lease and resumes: one start, no early request, the result once', async () => {
    const seen = await operationServer();
    const a = await startCheckpointWorker(jobOf('node-redis', 'run'));
    await killDuringWait(seen, a);
    const b = await startCheckpointWorker(jobOf('node-redis', 'run'));
    expect(await b.next((r) => r.type === 'settled', 'the result')).toMatchObject({ key: KEY, ...RESULT });
    await b.exited;
    expectPolite(seen);
    expect(settledOf([a, b])).toHaveLength(1);
    await expectGone();
  }, 60_000);
});
