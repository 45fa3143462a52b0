import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { fetchWithRetry, poll } from '../../src/index.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';
import { redisForTests } from './helpers/clusters.js';
import { delay, until } from './helpers/processes.js';

// Redis at its memory limit under `noeviction` still serves reads and
// refuses writes (OOM). A process must not take each read that succeeds
// for Redis being back: it stays `local` until a write succeeds, and says
// `connected` once, when Redis takes writes again. The test's own
// redis-server gets the limit (CONFIG SET), and none after.

const { run, redis, cluster } = redisForTests();

let server: TestServer | undefined;
let admin: ReturnType<typeof createClient> | undefined;
afterEach(async () => {
  await admin?.configSet({ maxmemory: '0' });
  await admin?.quit();
  admin = undefined;
  await server?.close();
  server = undefined;
});

describe.skipIf(!run)('Redis at maxmemory with noeviction', { timeout: 30_000 }, () => {
  it('polls with a cooldown, a shared job and a budget: each process says `local` once while writes fail, `connected` once when they succeed again', async () => {
    let n = 0;
    // Every fourth answer a 500: the budget's retries withdraw (a write), its successes refund.
    server = await startServer((_req, res) => (++n % 4 === 0 ? sendJson(res, 500, {}) : sendJson(res, 200, { n })));
    admin = (await createClient({ url: redis().url }).on('error', () => undefined).connect()) as ReturnType<typeof createClient>;
    await admin.configSet({ 'maxmemory-policy': 'noeviction' });
    const processes = [await cluster(), await cluster()];
    const stop = new AbortController();
    const running = processes.flatMap(({ cluster: c }, i) => [
      poll(`${server!.url}/job`, { interval: 40, use: [c.share(), c.cooldown()], signal: stop.signal, isDone: () => false }).catch(() => undefined),
      (async () => {
        const budget = c.budget({ name: `b${i}` });
        while (!stop.signal.aborted) {
          await fetchWithRetry(`${server!.url}/call`, { retry: { budget, retries: 2, backoff: () => 10 } }).catch(() => undefined);
          await delay(20);
        }
      })(),
    ]);
    await delay(500);
    expect(processes.map((p) => p.statuses)).toEqual([[], []]);

    await admin.configSet({ maxmemory: '1' });
    await delay(2500);
    // Reads (cooldown holds, lease checks of a follower) succeed all along: none brings `connected` back.
    expect(processes.map((p) => p.statuses.map((s) => s.type))).toEqual([['local'], ['local']]);
    expect(processes.map((p) => p.cluster.connected)).toEqual([false, false]);
    const oom = processes.map((p) => String((p.statuses[0] as { error: unknown }).error));
    for (const error of oom) expect(error).toMatch(/^(\w+: )?OOM /);

    await admin.configSet({ maxmemory: '0' });
    await until(() => processes.every((p) => p.statuses.length === 2), 'both back', 5000);
    await delay(500);
    expect(processes.map((p) => p.statuses.map((s) => s.type))).toEqual([
      ['local', 'connected'],
      ['local', 'connected'],
    ]);
    stop.abort();
    await Promise.all(running);
  });
});
