import { expect } from 'vitest';
import { fetchWithRetry, poll, type PollEvent } from '../../../src/index.js';
import type { RecordedServer } from './recorded-server.js';
import { pollTimes } from './ten-polls.js';
import { toldUntil } from './told.js';

/** The URLs of a cooldown-scope check: a rate-limited route, and a route of the same origin that is not. */
export interface ScopeRoutes {
  /** A route whose limiter allows one request, then answers 429 with a wait of seconds. */
  login: string;
  /** A route of the same origin without a limiter. */
  job: string;
}

const pathOf = (url: string): string => new URL(url).pathname;

/**
 * A 429 from the limiter of `login` cools that route only: a poller of
 * `login` then holds (a `cooldown` event, nothing sent), while a poller of
 * `job` on the same origin sends at once, before the reset `login` was told.
 */
export async function cooldownScope(server: RecordedServer, routes: ScopeRoutes): Promise<void> {
  for (const expected of [200, 429]) {
    const response = await fetchWithRetry(routes.login, { method: 'POST' });
    await response.arrayBuffer();
    expect(response.status).toBe(expected);
  }
  await server.settle?.();
  const refused = server.at(pathOf(routes.login)).at(-1)!;
  const until = toldUntil(refused);
  expect(until, 'the 429 says when to come back').toBeGreaterThan(refused.at + 1000);

  const loginEvents: PollEvent[] = [];
  const controller = new AbortController();
  await poll(routes.login, {
    signal: controller.signal,
    onEvent: (event) => {
      loginEvents.push(event);
      if (event.type === 'cooldown') controller.abort();
    },
  }).catch(() => undefined);
  await server.settle?.();
  expect(loginEvents[0]).toMatchObject({ type: 'cooldown', origin: new URL(routes.login).origin });
  expect(server.at(pathOf(routes.login))).toHaveLength(2);

  const jobEvents: PollEvent[] = [];
  expect(await pollTimes(routes.job, 3, { conditional: false, onEvent: (event) => jobEvents.push(event) })).toEqual([200, 200, 200]);
  expect(jobEvents.filter((e) => e.type === 'cooldown')).toEqual([]);
  await server.settle?.();
  const jobs = server.at(pathOf(routes.job));
  expect(jobs).toHaveLength(3);
  expect(jobs.every((a) => a.at < until!), 'the /job polls went out while /login was cooling').toBe(true);
}
