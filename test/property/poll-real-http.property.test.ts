import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPollGaveUpError, poll } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { FC_RUNS, watchUnhandled } from './runs.js';

// The same model, over real HTTP: a node:http server on 127.0.0.1 answers
// each generated case from its script (JSON with generated ETags, 304s,
// 503s, dropped connections, small real delays). Checks what only a real
// connection shows: one request in flight per poller, the exact ETag bytes
// coming back as If-None-Match, and nothing sent after settling.

type RealAnswer =
  | { kind: 'json'; done: boolean; etag: string | null; delay: number }
  | { kind: 'not-modified' | 'unavailable' | 'drop'; delay: number };

interface CaseState {
  script: RealAnswer[];
  seen: Array<{ ifNoneMatch: string | null }>;
  inFlight: number;
  maxInFlight: number;
}

// ETags as servers really send them: strong, weak, odd but legal bytes (obs-text included), and one of 4 KB.
const etagChar = fc.constantFrom(...'abcXYZ019-_./:;=+@!#$%&*~^`|\'"(){}[]<>?', 'é', 'ÿ', '\u0080', ' ', '\t');
const etagArb = fc.oneof(
  fc.constant(null),
  fc.string({ unit: etagChar, minLength: 1, maxLength: 40 }).map((s) => `"${s.trim() || 'x'}"`),
  fc.string({ unit: etagChar, minLength: 1, maxLength: 20 }).map((s) => `W/"${s}"`),
  fc.string({ unit: etagChar, minLength: 1, maxLength: 20 }).map((s) => s.trim() || 'bare'),
  fc.constant(`"${'z'.repeat(4096)}"`),
);
// Real delays, kept small: each one is wall-clock time, 1,000 cases over.
const delay = fc.constantFrom(0, 0, 0, 1, 2);
const answerArb: fc.Arbitrary<RealAnswer> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('json' as const), done: fc.integer({ min: 0, max: 9 }).map((n) => n < 2), etag: etagArb, delay }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('not-modified' as const), delay }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unavailable' as const), delay }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), delay }) },
);
const FINAL: RealAnswer = { kind: 'json', done: true, etag: null, delay: 0 };
const MAX_ATTEMPTS = 3;

const cases = new Map<string, CaseState>();
let server: Server;
let base = '';
const unhandled = watchUnhandled();

beforeAll(async () => {
  server = createServer((req, res) => {
    const state = cases.get(req.url ?? '');
    if (!state) return void res.writeHead(404).end();
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on('close', () => (state.inFlight -= 1));
    const answer = state.script[state.seen.length] ?? FINAL;
    state.seen.push({ ifNoneMatch: req.headers['if-none-match'] ?? null });
    req.resume();
    setTimeout(() => {
      switch (answer.kind) {
        case 'json': {
          const body = JSON.stringify({ done: answer.done, n: state.seen.length - 1 });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(answer.etag === null ? {} : { etag: answer.etag }) });
          return void res.end(body);
        }
        case 'not-modified':
          return void res.writeHead(304).end();
        case 'unavailable':
          return void res.writeHead(503, { 'content-length': 0 }).end();
        case 'drop':
          return void req.socket.destroy();
      }
    }, answer.delay);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  unhandled.stop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let caseNumber = 0;

describe('poll over real HTTP, generated servers', () => {
  it(`one request in flight, exact ETags echoed, the spec's count, nothing after settle (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { maxLength: 8 }), async (script) => {
        const path = `/case-${caseNumber++}`;
        const state: CaseState = { script, seen: [], inFlight: 0, maxInFlight: 0 };
        cases.set(path, state);
        const controller = new AbortController();
        const { env, pending } = recordingEnv();
        const outcome = await poll<{ done: boolean; n: number }>(`${base}${path}`, {
          env,
          signal: controller.signal,
          interval: 0,
          backoff: () => 0,
          retries: MAX_ATTEMPTS,
          cooldown: false,
          isDone: (data) => data.done,
        }).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );

        // The model: requests, outcome and the If-None-Match each request must carry.
        let failures = 0;
        let etag: string | null = null;
        const expectedHeaders: Array<string | null> = [];
        let expected: { done: number } | { gaveUp: number } | undefined;
        for (let i = 0; expected === undefined; i++) {
          const answer = script[i] ?? FINAL;
          expectedHeaders.push(etag);
          if (answer.kind === 'json') {
            failures = 0;
            etag = answer.etag;
            if (answer.done) expected = { done: i };
          } else if (answer.kind === 'not-modified') {
            failures = 0;
          } else if (++failures > MAX_ATTEMPTS) {
            expected = { gaveUp: i };
          }
        }
        // Node's fetch (undici) reads response header bytes as Latin-1 but writes request headers as UTF-8,
        // so an ETag with obs-text bytes (0x80-0xFF) comes back re-encoded: the server then just answers 200,
        // never a wrong 304. pollite hands on exactly the string fetch gave it; browsers send it byte for byte.
        const asNodeSendsIt = (value: string | null): string | null => (value === null ? null : Buffer.from(value, 'utf8').toString('latin1'));
        expect(state.seen.map((s) => s.ifNoneMatch)).toEqual(expectedHeaders.map(asNodeSendsIt));
        if ('done' in expected) expect(outcome).toEqual({ value: { done: true, n: expected.done } });
        else expect('error' in outcome && isPollGaveUpError(outcome.error)).toBe(true);
        expect(state.maxInFlight).toBe(1);
        expect([pending(), getEventListeners(controller.signal, 'abort').length]).toEqual([0, 0]);
        // Give a stray request every chance to show up: none may.
        await new Promise((resolve) => setTimeout(resolve, 1));
        await new Promise((resolve) => setImmediate(resolve));
        expect(state.seen).toHaveLength(expectedHeaders.length);
        expect(unhandled.seen).toEqual([]);
        cases.delete(path);
      }),
      { numRuns: FC_RUNS },
    );
  }, 600_000);
});
