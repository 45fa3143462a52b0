// Issue 36: a RateLimit field with several policies, as real middleware
// writes it. Two express-rate-limit limiters (draft-8) on one route each
// append their quota, so every answer carries a list:
// `"burst"; r=2; t=1, "window"; r=5; t=3`. pollite spreads what is left
// of every quota over its window after each 2xx, so a lone poller at a
// 50 ms interval never meets the 429 its interval alone would draw.
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { serveRecorded, type RecordedServer } from './helpers/recorded-server.js';

let server: RecordedServer;

beforeAll(async () => {
  const app = express();
  let n = 0;
  const burst = rateLimit({ windowMs: 1000, limit: 3, standardHeaders: 'draft-8', legacyHeaders: false, identifier: 'burst', validate: false });
  const window = rateLimit({ windowMs: 3000, limit: 6, standardHeaders: 'draft-8', legacyHeaders: false, identifier: 'window', validate: false });
  app.get('/job', burst, window, (_req, res) => void res.json({ n: n++ }));
  app.get('/naive', rateLimit({ windowMs: 1000, limit: 3, standardHeaders: 'draft-8', legacyHeaders: false, identifier: 'burst', validate: false }), (_req, res) => void res.json({ n: n++ }));
  server = await serveRecorded(app);
});
afterAll(() => server.close());

/** The quotas of a RateLimit list as the test reads them, without pollite's parser: [remaining, seconds to reset] of each. */
const quotas = (field: string | undefined): Array<[number, number]> =>
  [...(field ?? '').matchAll(/r=(\d+);\s*t=(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe('express-rate-limit draft-8, two limiters on one route', () => {
  it('every answer lists both quotas; pollite paces by the slowest and draws no 429', async () => {
    const events: PollEvent[] = [];
    let bodies = 0;
    await poll(`${server.url}/job`, { interval: 50, conditional: false, timeout: 20_000, isDone: () => ++bodies === 8, onEvent: (e) => events.push(e) });
    const arrivals = server.at('/job');
    expect(arrivals.map((a) => a.status)).toEqual(Array(8).fill(200));
    for (const [i, arrival] of arrivals.entries()) {
      const listed = quotas(arrival.headers.ratelimit);
      expect(listed, `answer ${i}: ${arrival.headers.ratelimit}`).toHaveLength(2);
      // The pace each answer announced (t rounded up by the limiter): the next request comes no sooner.
      const pace = Math.max(...listed.map(([r, t]) => (t * 1000) / (r + 1)));
      const next = arrivals[i + 1];
      if (next) expect(next.at - arrival.at, `gap after answer ${i} (${arrival.headers.ratelimit})`).toBeGreaterThanOrEqual(pace);
    }
    expect(events.filter((e) => e.type === 'wait').every((e) => e.source === 'ratelimit')).toBe(true);
  });

  it('the same interval without the pacing: the 429 pollite avoided (a fetch loop at 50 ms)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await fetch(`${server.url}/naive`);
      await response.arrayBuffer();
      statuses.push(response.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statuses).toContain(429);
  });
});
