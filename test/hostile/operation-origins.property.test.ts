import type { Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOperation } from '../../src/operation/index.js';
import { realTimersEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { slowRuns, watchUnhandled } from '../property/runs.js';
import { expectNothingLeft, selfSignedCertificate, startRawServer, timersNow, trustingDispatcher, type FetchDispatcher, type RawRequest, type RawServer } from './raw-server.js';

// Issue 33, "trust nothing a server says": credentials never go to an origin the caller did not
// name. pollOperation follows the URLs a server names (Operation-Location, Azure-AsyncOperation, a
// 202's Location; the final body's resourceLocation, the final Location, the start's Location), to
// generated origins: the start's, another port, `localhost` for 127.0.0.1, the other scheme (one
// server answers http and https on one port), with generated credential and safe headers on the
// start (or in `operation.headers`), `credentials: 'include'`, and a generated `trustedOrigins`.
// Each origin is a real loopback server that records what reached it, told apart by the scheme
// and Host the client used: each got the caller's credentials only if it is the start's or a
// trusted one, and every other header of the caller's only if it is safe (Accept,
// Accept-Language, Content-Language, User-Agent).

/** Where a URL points, relative to the start URL `scheme://127.0.0.1:A`. */
type Place = 'start' | 'port' | 'alias' | 'scheme';
const PLACES: readonly Place[] = ['start', 'port', 'alias', 'scheme'];

/** What a server names the monitor by. */
type MonitorVia = 'operation-location' | 'azure-asyncoperation' | 'location';
/** What names the result: the final body's resourceLocation, the final answer's Location, the start's Location (beside an Operation-Location or Azure-AsyncOperation), or nothing. */
type ResultVia = 'resourceLocation' | 'final-location' | 'start-location' | 'none';

type HeaderList = Array<[string, string]>;

interface OriginCase {
  scheme: 'http' | 'https';
  method: 'POST' | 'PUT';
  /** The start answers 307 to the same path on this place first (relative URLs then resolve there). */
  redirect: Place | undefined;
  headers: HeaderList;
  /** `operation.headers`, in place of the start's. */
  given: HeaderList | undefined;
  include: boolean;
  idempotencyKey: boolean;
  monitor: { via: MonitorVia; at: Place; relative: boolean };
  running: number;
  result: { via: ResultVia; at: Place; relative: boolean };
  trusted: Place[];
}

/** The mark of a value that must reach no origin the caller did not name. */
const SECRET = 'SECRET';
const SAFE = new Set(['accept', 'accept-language', 'content-language', 'user-agent']);
const CREDENTIAL_NAMES = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'api-key', 'ocp-apim-subscription-key'];

const token = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,12}$/);
const credentialHeader = fc.tuple(fc.oneof(fc.constantFrom(...CREDENTIAL_NAMES), fc.stringMatching(/^x-[a-z]{1,8}$/)), token).map(([name, value]): [string, string] => [name, `${SECRET}-${value}`]);
const safeHeader = fc.oneof(
  fc.constantFrom<[string, string]>(['accept', 'application/json'], ['accept', 'application/vnd.api+json'], ['accept-language', 'fr-CH'], ['content-language', 'de'], ['user-agent', 'pollite-test/1.0']),
  token.map((value): [string, string] => ['user-agent', `agent-${value}`]),
);
const headerListArb = fc.uniqueArray(fc.oneof(credentialHeader, safeHeader), { selector: ([name]) => name, minLength: 1, maxLength: 6 });

const placeArb = fc.constantFrom(...PLACES);
const originCaseArb: fc.Arbitrary<OriginCase> = fc
  .record({
    scheme: fc.constantFrom('http' as const, 'https' as const),
    method: fc.constantFrom('POST' as const, 'PUT' as const),
    redirect: fc.option(fc.constantFrom<Place>('port', 'alias', 'scheme'), { freq: 5, nil: undefined }),
    headers: headerListArb,
    given: fc.option(headerListArb, { freq: 4, nil: undefined }),
    include: fc.boolean(),
    idempotencyKey: fc.boolean(),
    monitor: fc.record({ via: fc.constantFrom<MonitorVia>('operation-location', 'azure-asyncoperation', 'location'), at: placeArb, relative: fc.boolean() }),
    running: fc.integer({ min: 0, max: 2 }),
    result: fc.record({ via: fc.constantFrom<ResultVia>('resourceLocation', 'final-location', 'start-location', 'none'), at: placeArb, relative: fc.boolean() }),
    trusted: fc.subarray([...PLACES]),
  })
  // The start's Location names the result only beside a monitor of its own header.
  .map((c) => (c.result.via === 'start-location' && c.monitor.via === 'location' ? { ...c, result: { ...c.result, via: 'none' as const } } : c));

// ---- the servers --------------------------------------------------------------------------------

/** The two servers of a case, and each place's origin. */
interface World {
  servers: [RawServer, RawServer];
  origin: Record<Place, string>;
  placeOf(origin: string): Place | undefined;
}

const OK = (status: string, fields: string[], body = ''): string =>
  `HTTP/1.1 ${status}\r\n${[...fields, ...(body ? ['Content-Type: application/json'] : []), `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;

/** Starts the two servers (A: the start's port, plain and TLS; B: another port) and answers as `c` says, whichever origin is asked. */
async function world(c: OriginCase, tls: { key: string; cert: string }): Promise<World> {
  let polls = 0;
  const places = {} as Record<Place, string>;
  const placeOf = (origin: string): Place | undefined => PLACES.find((place) => places[place] === origin);
  /** A URL the server names: relative when `relative` and it points at the origin it is resolved against. */
  const named = (at: Place, relative: boolean, against: Place, path: string): string => (relative && at === against ? path : `${places[at]}${path}`);
  const landed: Place = c.redirect ?? 'start';
  const answer = (socket: Socket, _index: number, request: RawRequest): void => {
    const place = placeOf(request.origin);
    const key = `${request.method} ${request.path}`;
    if (key === `${c.method} /jobs` && place === 'start' && c.redirect) return void socket.end(OK('307 Temporary Redirect', [`Location: ${places[c.redirect]}/jobs`]));
    if (key === `${c.method} /jobs`) {
      const fields = [`${c.monitor.via}: ${named(c.monitor.at, c.monitor.relative, landed, '/ops/1')}`];
      if (c.result.via === 'start-location') fields.push(`Location: ${named(c.result.at, c.result.relative, landed, '/result')}`);
      return void socket.end(OK('202 Accepted', fields));
    }
    if (key === 'GET /ops/1') {
      polls += 1;
      if (polls <= c.running) return void socket.end(OK('200 OK', [], '{"status":"Running"}'));
      const final: Record<string, string> = { status: 'Succeeded' };
      if (c.result.via === 'resourceLocation') final.resourceLocation = named(c.result.at, c.result.relative, c.monitor.at, '/result');
      const fields = c.result.via === 'final-location' ? [`Location: ${named(c.result.at, c.result.relative, c.monitor.at, '/result')}`] : [];
      return void socket.end(OK('200 OK', fields, JSON.stringify(final)));
    }
    if (key === 'GET /result') return void socket.end(OK('200 OK', [], '{"answer":42}'));
    if (key === 'GET /jobs') return void socket.end(OK('200 OK', [], '{"answer":"put"}'));
    socket.end(OK('404 Not Found', []));
  };
  const servers: [RawServer, RawServer] = [await startRawServer(answer, { tls }), await startRawServer(answer, { tls })];
  const [a, b] = servers;
  const other = c.scheme === 'http' ? 'https' : 'http';
  Object.assign(places, {
    start: `${c.scheme}://127.0.0.1:${a.port}`,
    port: `${c.scheme}://127.0.0.1:${b.port}`,
    alias: `${c.scheme}://localhost:${a.port}`,
    scheme: `${other}://127.0.0.1:${a.port}`,
  });
  return { servers, origin: places, placeOf };
}

// ---- the model ----------------------------------------------------------------------------------

/** The requests the case must make, in order: where, and what. */
function expectedRequests(c: OriginCase): Array<[Place, string]> {
  const start = `${c.method} /jobs`;
  const requests: Array<[Place, string]> = [['start', start]];
  if (c.redirect) requests.push([c.redirect, start]);
  for (let i = 0; i <= c.running; i += 1) requests.push([c.monitor.at, 'GET /ops/1']);
  if (c.result.via !== 'none') requests.push([c.result.at, 'GET /result']);
  // Azure's rule: a PUT polled through its own header is fetched again from the start URL.
  else if (c.method === 'PUT' && c.monitor.via !== 'location') requests.push(['start', 'GET /jobs']);
  return requests;
}

/** What the operation resolves with. */
const expectedResult = (c: OriginCase): unknown =>
  c.result.via !== 'none' ? { answer: 42 } : c.method === 'PUT' && c.monitor.via !== 'location' ? { answer: 'put' } : { status: 'Succeeded' };

/** The headers of the start handed on to the polls and the result: `operation.headers`, else the start's but the body's. */
const carriedHeaders = (c: OriginCase): Record<string, string> => Object.fromEntries(c.given ?? c.headers);

const isTrusted = (c: OriginCase, place: Place): boolean => place === 'start' || c.trusted.includes(place);

/** Checks one request that is not the start's: what of the caller's reached `place`, and nothing else of theirs. */
function expectHeaders(c: OriginCase, place: Place, request: RawRequest, context: string): void {
  const trusted = isTrusted(c, place);
  const carried = carriedHeaders(c);
  const where = `${request.method} ${request.path} at ${place} (${trusted ? 'trusted' : 'not trusted'}): ${context}`;
  for (const [name, value] of Object.entries(carried)) {
    if (trusted || SAFE.has(name)) expect(request.headers[name], `${name} missing from ${where}`).toBe(value);
    else expect(request.headers[name], `${name} sent to ${where}`).toBeUndefined();
  }
  // Nothing of the caller's secrets but those carried to a trusted origin, under any name; never the body's or the write's headers.
  for (const [name, value] of Object.entries(request.headers)) {
    if (value.includes(SECRET)) expect(trusted && carried[name] === value, `${name}: ${value} sent to ${where}`).toBe(true);
  }
  expect([request.headers['idempotency-key'], request.headers['content-type']], `the start's own headers sent to ${where}`).toEqual([undefined, undefined]);
}

// ---- the property -------------------------------------------------------------------------------

const listeners = trackListeners();
afterAll(() => listeners.uninstall());
const unhandled = watchUnhandled();
afterAll(() => unhandled.stop());

const certificate = selfSignedCertificate();
let dispatcher: FetchDispatcher;
beforeAll(async () => {
  dispatcher = await trustingDispatcher(certificate.cert);
});
afterAll(() => dispatcher.close());

const describeCase = (c: OriginCase, w: World): string =>
  JSON.stringify({ ...c, origins: w.origin }, (_key, value: unknown) => (value === undefined ? '(none)' : value));

describe('pollOperation sends the caller\'s credentials only to the origins the caller named', () => {
  it(`whichever origins the server names, each real origin receives exactly what the rule allows (${slowRuns(120)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(originCaseArb, async (c) => {
        const w = await world(c, certificate);
        const timersBefore = timersNow();
        const controller = new AbortController();
        const { env, pending } = realTimersEnv();
        const calls: Array<{ url: string; credentials: RequestCredentials | undefined }> = [];
        const recording: typeof fetch = (input, init) => {
          calls.push({ url: String(input instanceof Request ? input.url : input), credentials: init?.credentials });
          return fetch(input, init);
        };
        listeners.forget();
        const outcome = await pollOperation(`${w.origin.start}/jobs`, {
          method: c.method,
          body: '{"job":1}',
          headers: { 'content-type': 'application/json', ...Object.fromEntries(c.headers) },
          signal: controller.signal,
          ...(c.include && { credentials: 'include' as const }),
          dispatcher,
          operation: {
            env,
            fetch: recording,
            interval: 1,
            timeout: 10_000,
            ...(c.given && { headers: Object.fromEntries(c.given) }),
            ...(c.idempotencyKey && { idempotencyKey: `${SECRET}-key` }),
            trustedOrigins: c.trusted.map((place) => w.origin[place]),
          },
        } as RequestInit).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        const heads = w.servers.flatMap((server) => server.heads);
        const context = `${describeCase(c, w)}\n-> ${'error' in outcome ? String(outcome.error) : JSON.stringify(outcome.value)}\nreceived: ${heads.map((h) => `${h.origin} ${h.method} ${h.path}`).join(', ')}`;
        expect(outcome, context).toEqual({ value: expectedResult(c) });
        // Two servers: the order within each is the order sent; across them, by the model's order.
        const received = heads.map((head) => [w.placeOf(head.origin), `${head.method} ${head.path}`]);
        expect(received.sort(), context).toEqual(expectedRequests(c).sort());
        const [first, ...rest] = w.servers[0].heads;
        // The start as the caller sent it (a redirect's second leg is fetch's, by fetch's own rule).
        expect(first!.headers, context).toMatchObject({ ...Object.fromEntries(c.headers), 'content-type': 'application/json' });
        const requests = [...rest, ...w.servers[1].heads].filter((head) => !(head.path === '/jobs' && head.method === c.method));
        for (const request of requests) expectHeaders(c, w.placeOf(request.origin)!, request, context);
        // credentials: 'include' goes on only where the credentials go.
        const modes = calls.slice(1).map(({ url, credentials }) => [w.placeOf(new URL(url).origin), credentials]);
        const include = (place: Place | undefined): RequestCredentials | undefined => (c.include ? (isTrusted(c, place!) ? 'include' : 'same-origin') : undefined);
        expect(modes, context).toEqual(modes.map(([place]) => [place, include(place as Place | undefined)]));
        await expectNothingLeft({ servers: w.servers, pending, signal: controller.signal, timersBefore, listeners }, context);
        expect(unhandled.seen, context).toEqual([]);
      }),
      { numRuns: slowRuns(120) },
    );
  }, 240_000);
});
