import { afterEach, describe, expect, it } from 'vitest';
import { createRetryBudget, fetchWithRetry, type RetryBudget } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { sendJson, startServer, type TestServer } from '../helpers/server.js';

// What stops a fleet of callers from multiplying an outage: 50 callers each
// make 4 calls while the server answers 503, then 1 call after it recovers.
// The README quotes these figures.
const CALLERS = 50;
const CALLS_DURING_OUTAGE = 4;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function outage(budget: RetryBudget | undefined): Promise<{ during: number; after: number; failed: number }> {
  let down = true;
  server = await startServer((_req, res) => sendJson(res, down ? 503 : 200, { down }));
  const url = `${server.url}/api`;
  const { env } = recordingEnv(); // real timers firing at once: waits are recorded, not waited out
  const retry = { env, ...(budget ? { budget } : {}) };
  let failed = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let i = 0; i < CALLS_DURING_OUTAGE; i++) {
        const response = await fetchWithRetry(url, { retry });
        if (response.status === 503) failed += 1;
      }
    }),
  );
  const during = server.requests.length;
  down = false;
  await Promise.all(Array.from({ length: CALLERS }, () => fetchWithRetry(url, { retry })));
  return { during, after: server.requests.length - during, failed };
}

// 1,100 real requests: about 2 s on an idle machine, far longer on a busy shared one.
describe('50 concurrent callers during an outage', { timeout: 60_000 }, () => {
  it('without a budget, every call retries 3 times: 4 requests per call', async () => {
    const { during, after, failed } = await outage(undefined);
    expect(failed).toBe(CALLERS * CALLS_DURING_OUTAGE);
    expect(during).toBe(800);
    expect(after).toBe(CALLERS);
  });

  it('with one shared default budget, retries stop once 100 have been paid for: 1.5 requests per call', async () => {
    const budget = createRetryBudget();
    const { during, after, failed } = await outage(budget);
    expect(failed).toBe(CALLERS * CALLS_DURING_OUTAGE);
    // 200 first tries + 500 tokens / 5 per retry = 100 retries.
    expect(during).toBe(300);
    // Recovery is not delayed: every call succeeds on its first try, and each success refunds 1 token.
    expect(after).toBe(CALLERS);
    expect(budget.available).toBe(CALLERS);
  });
});
