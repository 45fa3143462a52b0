// Issue 34: a 503 with `Retry-After: 2` is the server pacing us, not a failure.
import type { ServerResponse } from 'node:http';
import { computed, effectScope } from 'vue';
import { afterEach, describe, expect, it } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/vue/index.js';
import { scripted, sendJson, startServer, type TestServer } from '../helpers/server.js';
import { manualClock, until } from '../observe/helpers.js';

let server: TestServer | undefined;
let stop: (() => void) | undefined;
afterEach(async () => {
  stop?.();
  stop = undefined;
  await server?.close();
  server = undefined;
});
const json =
  (status: number, body: unknown = {}, headers?: Record<string, string>) =>
  (res: ServerResponse): void =>
    sendJson(res, status, body, headers);
const busy = 'Busy: the server asked us to wait';

/** The README's line, as a computed over the view: it tracks `paced`, `attempt` and `secondsLeft`. */
const lineOf = (view: { paced: boolean; attempt: number; limit: number; secondsLeft: number | undefined }) =>
  computed(() =>
    view.secondsLeft === undefined ? '' : `${view.paced ? busy : `Attempt ${view.attempt} of ${view.limit} failed`}: next try in ${view.secondsLeft} s`,
  );

describe('a paced answer in pollite/vue', () => {
  it('usePoll: a 503 with Retry-After: 2 is busy, never a failure; a 503 without one is attempt 1 failed', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '2' }), json(503), json(200, { status: 'done' })]));
    const clock = manualClock();
    const scope = effectScope();
    stop = () => scope.stop();
    const url = server.url;
    const { poll, line } = scope.run(() => {
      const view = usePoll<{ status: string }>(url, { isDone: (j) => j.status === 'done', interval: 1000, backoff: () => 500, env: clock });
      return { poll: view, line: lineOf(view) };
    })!;
    expect(poll.paced).toBe(false);
    await until(() => line.value !== '', 'the paced wait');
    expect(poll).toMatchObject({ status: 'polling', attempt: 1, paced: true });
    expect(line.value).toBe(`${busy}: next try in 2 s`);
    clock.advance(2000);
    await until(() => line.value.includes('failed'), 'the counted failure');
    expect(line.value).toBe('Attempt 1 of 9 failed: next try in 2 s');
    expect(poll.paced).toBe(false);
    clock.advance(1500);
    await until(() => poll.status === 'done');
    expect(poll.paced).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it('useFetchWithRetry: a 503 with Retry-After: 2 is busy, never a failure', async () => {
    server = await startServer(scripted([json(503, {}, { 'retry-after': '2' }), json(200, { rows: 1 })]));
    const clock = manualClock();
    const scope = effectScope();
    stop = () => scope.stop();
    const url = server.url;
    const { report, line } = scope.run(() => {
      const view = useFetchWithRetry<{ rows: number }>(url, { env: clock });
      return { report: view, line: lineOf(view) };
    })!;
    expect(report.paced).toBe(false);
    await until(() => line.value !== '', 'the paced wait');
    expect(report).toMatchObject({ status: 'loading', attempt: 1, paced: true });
    expect(line.value).toBe(`${busy}: next try in 2 s`);
    clock.advance(2000);
    await until(() => report.status === 'done');
    expect(report).toMatchObject({ paced: false, attempt: 2, data: { rows: 1 } });
  });
});
