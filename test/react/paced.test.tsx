// @vitest-environment jsdom
// Issue 34: a 503 with `Retry-After: 2` is the server pacing us, not a failure:
// the README's line, as users copy it, must say so.
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/react/index.js';
import { scripted, startServer, type TestServer } from '../helpers/server.js';
import { advance, answer, FAKE_TIMERS, isDone, until, type Job } from './helpers.js';

let server: TestServer | undefined;
beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  cleanup();
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

const noRandom = { random: () => 0 };
const busy = 'Busy: the server asked us to wait';

/** The README's line: what every app built on it shows while a wait counts down. */
function Wait({ view, shown }: { view: { paced: boolean; attempt: number; limit: number; secondsLeft: number | undefined; status: string }; shown: string[] }) {
  if (view.secondsLeft === undefined) return <p>{view.status}</p>;
  const text = `${view.paced ? busy : `Attempt ${view.attempt} of ${view.limit} failed`}: next try in ${view.secondsLeft} s`;
  shown.push(text);
  return <p>{text}</p>;
}

function PollWait({ url, shown }: { url: string; shown: string[] }) {
  const job = usePoll<Job>(url, { isDone, interval: 1000, backoff: () => 500, env: noRandom });
  return <Wait view={job} shown={shown} />;
}

function FetchWait({ url, shown }: { url: string; shown: string[] }) {
  const report = useFetchWithRetry<{ rows: number }>(url, { backoff: () => 500, env: noRandom });
  return <Wait view={report} shown={shown} />;
}

const text = (): string => screen.getByRole('paragraph').textContent ?? '';

describe('a paced answer in React', () => {
  it('usePoll shows a 503 with Retry-After: 2 as busy, never as a failure; a 503 without one as attempt 1 failed', async () => {
    server = await startServer(scripted([answer(503, {}, { 'retry-after': '2' }), answer(503), answer(200, { status: 'done' })]));
    const shown: string[] = [];
    render(<PollWait url={server.url} shown={shown} />);
    await until(() => text().startsWith(busy));
    expect(text()).toBe(`${busy}: next try in 2 s`);
    await advance(1999);
    expect(server.requests).toHaveLength(1);
    expect(text()).toBe(`${busy}: next try in 1 s`);
    expect(shown.filter((line) => !line.startsWith(busy))).toEqual([]);
    await advance(1);
    await until(() => text().includes('failed'));
    expect(text()).toBe('Attempt 1 of 9 failed: next try in 2 s');
    await advance(1500);
    await until(() => text() === 'done');
    expect(server.requests).toHaveLength(3);
  });

  it('useFetchWithRetry shows a 503 with Retry-After: 2 as busy, never as a failure; a 503 without one as a failure', async () => {
    server = await startServer(scripted([answer(503, {}, { 'retry-after': '2' }), answer(503), answer(200, { rows: 1 })]));
    const shown: string[] = [];
    render(<FetchWait url={server.url} shown={shown} />);
    await until(() => text().startsWith(busy));
    expect(text()).toBe(`${busy}: next try in 2 s`);
    await advance(1999);
    expect(server.requests).toHaveLength(1);
    expect(shown.filter((line) => !line.startsWith(busy))).toEqual([]);
    await advance(1);
    await until(() => text().includes('failed'));
    expect(text()).toBe('Attempt 2 of 4 failed: next try in 1 s');
    await advance(500);
    await until(() => text() === 'done');
    expect(server.requests).toHaveLength(3);
  });
});
