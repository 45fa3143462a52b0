// Property: any interleaving of crashes and resumes of pollOperation under a checkpoint, against a server that
// answers at random (202s and Running answers with and without Retry-After, 503s with one, 500s, dropped
// connections), never sends the start twice without its Idempotency-Key, and never sends a request before the
// time an answer it received asked for. A crash lands during a request (the server does the work, its answer is
// lost) or during a wait (once the checkpoint of that wait is in the store): from then on, the dead run reaches
// neither the server nor the store. Virtual time; the server is a function of the request, in memory, so that
// hundreds of interleavings run in seconds (test/resume/crash.test.ts does it with real processes and HTTP).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import { checkpoint, isCheckpointRefusedError, memoryStore, type CheckpointStore } from '../../src/resume/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { slowRuns } from '../property/runs.js';

type Answer = { kind: 'accepted' | 'running' | 'unavailable'; wait: number } | { kind: 'error' | 'drop' | 'done' };

const wait = fc.integer({ min: 0, max: 8 });
const startArb: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 3, arbitrary: wait.map((w) => ({ kind: 'accepted' as const, wait: w })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }).map((w) => ({ kind: 'unavailable' as const, wait: w })) },
  { weight: 1, arbitrary: fc.constantFrom<Answer>({ kind: 'error' }, { kind: 'drop' }) },
);
const pollArb: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 3, arbitrary: wait.map((w) => ({ kind: 'running' as const, wait: w })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 8 }).map((w) => ({ kind: 'unavailable' as const, wait: w })) },
  { weight: 1, arbitrary: fc.constantFrom<Answer>({ kind: 'error' }, { kind: 'drop' }, { kind: 'done' }) },
);

/** What the server saw: when (virtual ms), what, with which key, and (for an answer the client received) until when it asked for nothing. */
interface Seen {
  at: number;
  line: string;
  key: string | null;
  run: number;
  askedUntil?: number;
  delivered: boolean;
}

const BASE = 'https://api.example';

describe('crash and resume, property', () => {
  it('never sends the start twice without its key, and never undercuts a wait the server asked for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(startArb, { minLength: 1, maxLength: 4 }),
        fc.array(pollArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 999 }),
        async (starts, polls, crashes, keyed, randomness) => {
          const clock = new VirtualClock({ start: 1_000_000, random: randomness / 1000, auto: true });
          const shared = memoryStore();
          const seen: Seen[] = [];
          let startCount = 0;
          let pollCount = 0;
          let outcome = 'crashed';
          for (let run = 0; run <= crashes.length && outcome === 'crashed'; run += 1) {
            const crashAt = crashes[run];
            let steps = 0;
            let crashed = false;
            const controller = new AbortController();
            const crash = (): void => {
              crashed = true;
              controller.abort(new Error('crashed'));
            };
            const step = (): boolean => (steps += 1) === crashAt;
            // The store as this run sees it: nothing reaches it once the run is dead; a wait's write that lands may be the crash point.
            const store: CheckpointStore = {
              get: (key) => shared.get(key),
              set: (key, value) => {
                if (crashed) return;
                shared.set(key, value);
                if (step()) crash();
              },
              delete: (key) => {
                if (!crashed) shared.delete(key);
              },
            };
            const fetchFake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
              if (crashed) throw controller.signal.reason;
              const url = String(input instanceof Request ? input.url : input);
              const method = (init?.method ?? 'GET').toUpperCase();
              const headers = new Headers(init?.headers);
              const path = url.slice(BASE.length);
              const entry: Seen = { at: clock.now(), line: `${method} ${path}`, key: headers.get('idempotency-key'), run, delivered: false };
              seen.push(entry);
              // Past its script the server accepts the start and finishes the job: every scenario ends.
              const answer: Answer =
                method === 'POST' ? (starts[startCount++] ?? { kind: 'accepted', wait: 0 }) : path === '/reports/1' ? { kind: 'done' } : (polls[pollCount++] ?? { kind: 'done' });
              // The request reached the server and was done; a crash now loses its answer.
              if (step()) {
                crash();
                throw controller.signal.reason;
              }
              entry.delivered = true;
              const asking = (seconds: number): Record<string, string> => {
                if (seconds > 0) entry.askedUntil = clock.now() + seconds * 1000;
                return seconds > 0 ? { 'retry-after': String(seconds) } : {};
              };
              switch (answer.kind) {
                case 'accepted':
                  return new Response(null, { status: 202, headers: { 'operation-location': '/ops/1', ...asking(answer.wait) } });
                case 'running':
                  return Response.json({ status: 'Running' }, { headers: asking(answer.wait) });
                case 'unavailable':
                  return new Response(null, { status: 503, headers: asking(answer.wait) });
                case 'error':
                  return new Response(null, { status: 500 });
                case 'drop':
                  throw new TypeError('fetch failed');
                case 'done':
                  return path === '/reports/1' ? Response.json({ rows: 1 }) : Response.json({ status: 'Succeeded', resourceLocation: '/reports/1' });
              }
            };
            outcome = await pollOperation(`${BASE}/reports`, {
              method: 'POST',
              body: '{}',
              signal: controller.signal,
              operation: {
                env: clock.env(),
                fetch: fetchFake as typeof fetch,
                interval: 500,
                retries: 20,
                cooldown: false,
                ...(keyed && { idempotencyKey: true }),
                resume: checkpoint({ store, key: 'report' }),
              },
            }).then(
              () => 'resolved',
              (error: unknown) => (crashed ? 'crashed' : isCheckpointRefusedError(error) ? 'refused' : 'rejected'),
            );
          }

          // 1. The start: sent once, or every time with one and the same key.
          const posts = seen.filter((s) => s.line === 'POST /reports');
          if (posts.length > 1) {
            expect(posts.every((p) => p.key !== null && p.key === posts[0]!.key), JSON.stringify(posts)).toBe(true);
          }
          // 2. No request before the time an answer the client received asked for.
          for (let i = 1; i < seen.length; i += 1) {
            const before = seen[i - 1]!;
            if (before.delivered && before.askedUntil !== undefined) expect(seen[i]!.at, JSON.stringify(seen)).toBeGreaterThanOrEqual(before.askedUntil);
          }
          // 3. A call that resolved left nothing behind; one refused left its checkpoint for the caller.
          if (outcome === 'resolved') expect(shared.entries.size).toBe(0);
          if (outcome === 'refused') expect(keyed).toBe(false);
        },
      ),
      { numRuns: slowRuns(200) },
    );
  }, 120_000);
});
