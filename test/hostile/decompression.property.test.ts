import type { Socket } from 'node:net';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { QueryClient } from '@tanstack/query-core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readText } from '../../src/http/body.js';
import { fetchWithRetry, isParseError, poll, type Environment } from '../../src/index.js';
import { createFetchState } from '../../src/observe/index.js';
import { pollOperation } from '../../src/operation/index.js';
import { conditionalQueryFn } from '../../src/tanstack/index.js';
import { realTimersEnv } from '../helpers/env.js';
import { trackListeners } from '../helpers/event-listeners.js';
import { slowRuns, watchUnhandled } from '../property/runs.js';
import { expectNothingLeft, sampleMemory, startRawServer, timersNow, type RawServer } from './raw-server.js';

// Issue 33, "trust nothing a server says": a body's size is counted decoded, whatever its
// Content-Length and Content-Encoding say. Generated compressed bodies (gzip, deflate, br, stacked,
// split at random, framed by a length, chunks or the close) of random ratios, honest and bombs,
// against every surface that reads a body: a small one parses to exactly what was sent, one past
// the limit ends as the documented oversized outcome (a RangeError, or a ParseError caused by
// one) having pulled the limit and a few chunks, never the bomb. The bound is exercised at low
// limits through readText's `limit` (as a `parse`), and at the default 16 MiB with true bombs.

type Coding = 'gzip' | 'deflate' | 'br';
const CODINGS: readonly Coding[] = ['gzip', 'deflate', 'br'];
const MiB = 2 ** 20;

/**
 * Each coding, compressing hard, or `stored`: gzip and deflate in stored blocks (level 0, as a
 * server streaming what it cannot compress sends), brotli at quality 0. Stored, and for any small
 * body, the bytes on the wire outnumber the decoded ones.
 */
const ENCODE: Record<Coding, (plain: Buffer, stored?: boolean) => Buffer> = {
  gzip: (plain, stored) => gzipSync(plain, { level: stored ? 0 : 9 }),
  deflate: (plain, stored) => deflateSync(plain, { level: stored ? 0 : 9 }),
  br: (plain, stored) => brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: stored ? 0 : 5 } }),
};
/** `plain` with each coding applied in turn: the order Content-Encoding lists them in. */
const encode = (plain: Buffer, codings: readonly Coding[], stored = false): Buffer => codings.reduce((bytes, coding) => ENCODE[coding](bytes, stored), plain);

/** Wire bytes by recipe: a bomb is made once however many cases draw it. */
const made = new Map<string, Buffer>();
const once = (key: string, make: () => Buffer): Buffer => {
  let wire = made.get(key);
  if (!wire) made.set(key, (wire = make()));
  return wire;
};

/**
 * `decoded` bytes of JSON (spaces, then `{}`) as concatenated gzip members (RFC 1952 §2.2), one per
 * MiB: a MiB of spaces compresses to about 1 KiB once and repeats, so a GiB costs a MiB on the wire
 * and nothing to make. A reader that trusts the headers gets `{}`.
 */
function gzipMembers(decoded: number): Buffer {
  const members: Buffer[] = [];
  for (let from = 0; from < decoded; from += MiB) {
    const size = Math.min(MiB, decoded - from);
    // Spaces, but for the closing `{}`, which straddles the last two members when the last holds one byte.
    const closing = from + size > decoded - 2;
    members.push(
      once(closing ? `member ${size}, ${decoded - from} to go` : `member ${size} of spaces`, () => {
        const plain = Buffer.alloc(size, ' ');
        if (closing) for (const [at, char] of [[decoded - 2, '{'], [decoded - 1, '}']] as const) if (at >= from) plain.write(char, at - from);
        return ENCODE.gzip(plain);
      }),
    );
  }
  return Buffer.concat(members);
}

// ---- the generated bodies -----------------------------------------------------------------------

/** How the answer is delimited: an honest Content-Length of the wire bytes, chunks, or the close. */
type Framing = 'length' | 'chunked' | 'close';
const framingArb = fc.constantFrom<Framing>('length', 'chunked', 'close');
/** Where the wire bytes are split into separate writes, as fractions of their length. */
const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 });

/** The Content-Encoding header for `codings`, spelt as a server might: case, spacing. */
const spelling = (codings: readonly Coding[], upper: boolean, tight: boolean): string => codings.map((c) => (upper ? c.toUpperCase() : c)).join(tight ? ',' : ', ');

/** Characters of the filler: ASCII, and UTF-8 of two, three and four bytes, so a character may straddle chunks. */
const ALPHABET = ['a', 'Z', '7', ' ', '-', 'é', 'ß', '€', '中', '𝄞', '😀'];

/**
 * A JSON document `{"pad":"…"}` of exactly `size` bytes (0: an empty body), its filler drawn by a
 * seeded generator: random characters (compresses little) or one short unit repeated (compresses
 * a lot).
 */
function jsonOfSize(size: number, filler: 'random' | 'repeated', seed: number): string {
  if (size === 0) return '';
  let state = seed >>> 0 || 1;
  const next = (): number => ((state ^= state << 13), (state ^= state >>> 17), (state ^= state << 5), (state >>> 0) % ALPHABET.length);
  const unit = Array.from({ length: 1 + (next() % 8) }, () => ALPHABET[next()]!).join('');
  const parts: string[] = [];
  let bytes = 0;
  const room = size - 10;
  while (bytes < room) {
    const piece = filler === 'repeated' ? unit : ALPHABET[next()]!;
    const length = Buffer.byteLength(piece);
    if (bytes + length > room) break;
    parts.push(piece);
    bytes += length;
  }
  return `{"pad":"${parts.join('')}${'x'.repeat(room - bytes)}"}`;
}

/** A document's size, from its relation to the limit: 0 or at least 10 bytes (the smallest `{"pad":""}`). */
const sizeFor = (limit: number, relation: 'at' | 'over' | 'under' | 'within' | 'past', fraction: number): number => {
  const size = { at: limit, over: limit + 1, under: limit - 1, within: Math.floor(fraction * limit), past: limit + 1 + Math.floor(fraction * 3 * limit) }[relation];
  return size > 0 && size < 10 ? 10 : size;
};

/** A body at a low limit: a generated document compressed by up to two codings, or a gzip-member bomb of 1 MiB to 1 GiB, maybe wrapped once more. */
type SmallBody =
  | { kind: 'document'; relation: 'at' | 'over' | 'under' | 'within' | 'past'; fraction: number; filler: 'random' | 'repeated'; seed: number; codings: Coding[]; stored: boolean }
  | { kind: 'bomb'; mib: number; outer: Coding[] };
const documentArb = fc.record({
  kind: fc.constant('document' as const),
  relation: fc.constantFrom('at' as const, 'over' as const, 'under' as const, 'within' as const, 'past' as const),
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
  filler: fc.constantFrom('random' as const, 'repeated' as const),
  seed: fc.integer(),
  codings: fc.array(fc.constantFrom(...CODINGS), { maxLength: 2 }),
  stored: fc.boolean(),
});
const bombArb = fc.record({ kind: fc.constant('bomb' as const), mib: fc.constantFrom(1, 8, 64, 1024), outer: fc.array(fc.constantFrom(...CODINGS), { maxLength: 1 }) });
const smallBodyArb: fc.Arbitrary<SmallBody> = fc.oneof({ weight: 4, arbitrary: documentArb }, { weight: 1, arbitrary: bombArb });

/** What a server sends, and what the body is once decoded (`undefined`: too large to hold, past any limit here). */
interface Served {
  wire: Buffer;
  encoding: string | undefined;
  decodedBytes: number;
  text: string | undefined;
}

function served(body: SmallBody, limit: number, upper: boolean, tight: boolean): Served {
  if (body.kind === 'bomb') {
    const codings: Coding[] = ['gzip', ...body.outer];
    const wire = once(`bomb ${body.mib} ${codings.join()}`, () => encode(gzipMembers(body.mib * MiB), body.outer));
    return { wire, encoding: spelling(codings, upper, tight), decodedBytes: body.mib * MiB, text: undefined };
  }
  // Up to four times the limit: for a repeated filler, a hundred or more times its size on the wire.
  const text = jsonOfSize(sizeFor(limit, body.relation, body.fraction), body.filler, body.seed);
  const plain = Buffer.from(text);
  return { wire: encode(plain, body.codings, body.stored), encoding: body.codings.length ? spelling(body.codings, upper, tight) : undefined, decodedBytes: plain.length, text };
}

// ---- the server ---------------------------------------------------------------------------------

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes a 200 carrying `wire` as `framing` says, split at `cuts`, a turn between writes; stops when the client hangs up. */
async function send(socket: Socket, body: Pick<Served, 'wire' | 'encoding'>, framing: Framing, cuts: readonly number[]): Promise<void> {
  const { wire, encoding } = body;
  const fields = ['Content-Type: application/json', ...(encoding ? [`Content-Encoding: ${encoding}`] : [])];
  if (framing === 'length') fields.push(`Content-Length: ${wire.length}`);
  if (framing === 'chunked') fields.push('Transfer-Encoding: chunked');
  socket.write(`HTTP/1.1 200 OK\r\n${[...fields, 'Connection: close'].join('\r\n')}\r\n\r\n`);
  const at = [...new Set([0, ...cuts.map((cut) => Math.floor(cut * wire.length)), wire.length])].sort((a, b) => a - b);
  for (let i = 1; i < at.length; i += 1) {
    if (socket.destroyed) return;
    const piece = wire.subarray(at[i - 1], at[i]);
    socket.write(framing === 'chunked' ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece);
    await turn();
  }
  if (!socket.destroyed) socket.end(framing === 'chunked' ? '0\r\n\r\n' : '');
}

/**
 * The routes every surface needs: `/start` (an operation's 202 naming `/ops/1`), `/ops/1` (the
 * body itself, or, for `result`, a status naming `/result`) and everything else the body.
 */
const serveBody = (body: Pick<Served, 'wire' | 'encoding'>, framing: Framing, cuts: readonly number[], resultAt: boolean): Promise<RawServer> =>
  startRawServer((socket, _index, request) => {
    const empty = (status: string, extra: string): void => void socket.end(`HTTP/1.1 ${status}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
    const json = (text: string): void => void socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n${text}`);
    if (request.path === '/start') return empty('202 Accepted', 'Operation-Location: /ops/1\r\n');
    if (request.path === '/ops/1' && resultAt) return json('{"status":"Succeeded","resourceLocation":"/result"}');
    void send(socket, body, framing, cuts);
  });

// ---- the surfaces -------------------------------------------------------------------------------

/** Every pollite surface that reads a 2xx body, as one call: the value it resolves with, or the error. */
type Surface = 'fetchWithRetry' | 'poll' | 'operation-status' | 'operation-result' | 'fetch-state' | 'query-fn';
const SURFACES: readonly Surface[] = ['fetchWithRetry', 'poll', 'operation-status', 'operation-result', 'fetch-state', 'query-fn'];

type Outcome = { value: unknown } | { error: unknown };
interface CallSettings {
  base: string;
  fetch: typeof fetch;
  env: Partial<Environment>;
  /** The caller's signal, never aborted: pollite must listen to it, and leave nothing on it. */
  signal: AbortSignal;
  deadline: number;
  /** readText's limit, as a `parse`, for the body at `path` (an operation's other answers read as usual); undefined: the default parser. */
  limit: number | undefined;
  path: string;
}

const settle = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

async function callSurface(surface: Surface, s: CallSettings): Promise<Outcome> {
  const { base, fetch, env, signal, deadline, limit, path } = s;
  const parse =
    limit === undefined ? undefined : async (response: Response): Promise<unknown> => {
      const text = await readText(response, new URL(response.url).pathname === path ? limit : undefined);
      return text === '' ? undefined : (JSON.parse(text) as unknown);
    };
  switch (surface) {
    case 'fetchWithRetry':
      // The caller reads what fetchWithRetry resolves with, bounded as pollite bounds its own reads.
      return settle(fetchWithRetry(`${base}/body`, { signal, retry: { env, fetch, timeout: deadline, retries: 0 } }).then((response) => readText(response, limit)));
    case 'poll':
      return settle(poll(`${base}/body`, { env, signal, fetch, timeout: deadline, retries: 0, isDone: () => true, ...(parse && { parse }) }));
    case 'operation-status':
    case 'operation-result':
      return settle(pollOperation(`${base}/start`, { method: 'POST', body: '{}', signal, operation: { env, fetch, timeout: deadline, interval: 1, retries: 0, ...(parse && { parse }) } }));
    case 'fetch-state': {
      const state = createFetchState(`${base}/body`, { env, fetch, timeout: deadline, retries: 0, ...(parse && { parse }) });
      const ended = new Promise<Outcome>((resolve) => {
        const stop = state.subscribe(() => {
          const now = state.getSnapshot();
          if (now.status === 'loading') return;
          stop();
          resolve(now.status === 'error' ? { error: now.error } : { value: now.data });
        });
      });
      state.start();
      return ended;
    }
    case 'query-fn': {
      const client = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity } } });
      const queryFn = conditionalQueryFn(`${base}/body`, { fetch, ...(parse && { parse: async (r: Response) => (await parse(r)) ?? null }) });
      const outcome = await settle(client.fetchQuery({ queryKey: ['body'], queryFn }));
      client.clear();
      // TanStack's "no data" is null: the empty body, read by either parser.
      return 'value' in outcome && outcome.value === null ? { value: undefined } : outcome;
    }
  }
}

/** What `surface` resolves with for a body that parses to `parsed` (read as `text`). */
const expectedValue = (surface: Surface, text: string, parsed: unknown): unknown => (surface === 'fetchWithRetry' ? text : parsed);

/** The documented outcome of a body past `limit`: readText's RangeError as is, or the ParseError it causes. */
function expectOversized(surface: Surface, outcome: Outcome, limit: number, context: string): void {
  expect('error' in outcome, `resolved past the limit: ${context}`).toBe(true);
  const { error } = outcome as { error: unknown };
  const tooLarge = new RangeError(`The body is larger than ${limit} bytes`);
  if (surface === 'fetchWithRetry') return void expect(error, context).toEqual(tooLarge);
  expect(isParseError(error), `${String(error)}: ${context}`).toBe(true);
  expect((error as { cause?: unknown }).cause, context).toEqual(tooLarge);
}

/**
 * Global fetch, counting the body bytes handed to the reader of the answers from `path` as they
 * pass: decoded (fetch has undone the coding), before any parser sees them.
 */
function countingFetch(path: string): { fetch: typeof fetch; read: () => number } {
  let read = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body || new URL(response.url).pathname !== path) return response;
    const count = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const counted = new Response(response.body.pipeThrough(count), { status: response.status, statusText: response.statusText, headers: response.headers });
    return Object.defineProperty(counted, 'url', { value: response.url });
  };
  return { fetch: counting, read: () => read };
}

/** The path each surface reads the generated body from. */
const BODY_PATH: Record<Surface, string> = { fetchWithRetry: '/body', poll: '/body', 'operation-status': '/ops/1', 'operation-result': '/result', 'fetch-state': '/body', 'query-fn': '/body' };

// ---- the properties -----------------------------------------------------------------------------

const listeners = trackListeners();
afterAll(() => listeners.uninstall());
const unhandled = watchUnhandled();
afterAll(() => unhandled.stop());

/**
 * Bytes a reader may pull past its limit: what the decoders had handed on before the read that
 * crossed it was cancelled (their chunks are 16 KiB; undici's and the counting stream's queues
 * hold a few).
 */
const SLACK = 256 * 1024;
/** The most a case's heap and Buffers may grow: far below any bomb here but the smallest, far above any honest body (2 MiB of text, held a few times). */
const MEMORY_LIMIT = 96 * MiB;
/** Settling after the deadline on a busy machine. */
const MARGIN = 1000;

interface CaseResult {
  outcome: Outcome;
  pulled: number;
  grew: number;
  ms: number;
}

/** Serves `body`, calls `surface` with a counting fetch, measures, and checks that nothing was left behind. */
async function runCase(surface: Surface, body: Pick<Served, 'wire' | 'encoding'>, framing: Framing, cuts: readonly number[], limit: number | undefined, deadline: number, context: () => string): Promise<CaseResult> {
  const server = await serveBody(body, framing, cuts, surface === 'operation-result');
  const timersBefore = timersNow();
  const memory = await sampleMemory();
  const counted = countingFetch(BODY_PATH[surface]);
  const { env, pending } = realTimersEnv();
  const { signal } = new AbortController();
  listeners.forget();
  const started = performance.now();
  const outcome = await callSurface(surface, { base: `http://127.0.0.1:${server.port}`, fetch: counted.fetch, env, signal, deadline, limit, path: BODY_PATH[surface] });
  const ms = performance.now() - started;
  const result = { outcome, pulled: counted.read(), grew: memory.stop(), ms };
  // conditionalQueryFn hands fetch the query's signal and makes none of its own; createFetchState takes none (stop() stops it).
  await expectNothingLeft({ servers: [server], pending, signal, timersBefore, listeners, listens: surface !== 'query-fn' }, context());
  expect(unhandled.seen, context()).toEqual([]);
  return result;
}

const describeOutcome = (outcome: Outcome): string =>
  'error' in outcome ? `rejected: ${String(outcome.error)} (cause: ${String((outcome.error as { cause?: unknown })?.cause)})` : `resolved: ${JSON.stringify(outcome.value)?.slice(0, 80)}`;

describe('a compressed body is bounded by its decoded size, on every surface that reads one', () => {
  it(`at a low limit (readText's, as a parse): honest bodies parse whole, any past it end as too large having pulled the limit and a chunk (${slowRuns(150)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SURFACES),
        smallBodyArb,
        fc.integer({ min: 16, max: 64 * 1024 }),
        fc.boolean(),
        fc.boolean(),
        framingArb,
        cutsArb,
        async (surface, body, limit, upper, tight, framing, cuts) => {
          const sent = served(body, limit, upper, tight);
          const DEADLINE = 5000;
          const describeCase = (): string =>
            `${surface} limit ${limit}, ${sent.decodedBytes} bytes decoded from ${sent.wire.length} (${sent.encoding ?? 'identity'}${body.kind === 'document' && body.stored ? ' stored' : ''}, ${framing}, cut at ${cuts.map((c) => c.toFixed(2)).join(' ')})`;
          const { outcome, pulled, grew, ms } = await runCase(surface, sent, framing, cuts, limit, DEADLINE, describeCase);
          const context = `${describeCase()} -> ${describeOutcome(outcome)}, pulled ${pulled}, grew ${(grew / MiB).toFixed(1)} MiB in ${Math.round(ms)} ms`;
          expect(ms, context).toBeLessThan(DEADLINE + MARGIN);
          expect(grew, context).toBeLessThan(MEMORY_LIMIT);
          expect(pulled, context).toBeLessThanOrEqual(Math.min(sent.decodedBytes, limit + SLACK));
          if (sent.text !== undefined && sent.decodedBytes <= limit) {
            expect(outcome, context).toEqual({ value: expectedValue(surface, sent.text, sent.text === '' ? undefined : JSON.parse(sent.text)) });
          } else expectOversized(surface, outcome, limit, context);
        },
      ),
      {
        numRuns: slowRuns(150),
        // Always tried: an honest body smaller than its own gzip (a Content-Length past the limit that decodes within it), and a GiB bomb.
        examples: [
          ['poll', { kind: 'document', relation: 'at', fraction: 0, filler: 'random', seed: 1, codings: ['gzip'], stored: false }, 64, false, false, 'length', []],
          ['operation-result', { kind: 'bomb', mib: 1024, outer: ['br'] }, 1024, false, false, 'chunked', [0.5]],
        ],
      },
    );
  }, 240_000);

  /** Bodies around the default parser's 16 MiB: exactly it (parses), one byte more, twice it, a GiB. */
  const bigArb = fc.oneof(
    fc.record({
      decoded: fc.constantFrom(MAX_BODY_BYTES, MAX_BODY_BYTES + 1, 2 * MAX_BODY_BYTES),
      coding: fc.constantFrom<Coding>(...CODINGS),
      outer: fc.constant<Coding[]>([]),
      stored: fc.boolean(),
    }),
    fc.record({
      decoded: fc.constantFrom(MAX_BODY_BYTES, MAX_BODY_BYTES + 1, 1024 * MiB),
      coding: fc.constant<Coding>('gzip'),
      outer: fc.array(fc.constantFrom(...CODINGS), { maxLength: 1 }),
      stored: fc.constant(false),
    }),
  );
  /** Room for the default parser's own copies of a 16 MiB body (undici's chunks, the string, the parse), and collection lag. */
  const BIG_MEMORY_LIMIT = 128 * MiB;

  it(`at the default 16 MiB, with true bombs: a GiB ends as a ParseError caused by a RangeError, exactly 16 MiB parses (${slowRuns(24)} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SURFACES), bigArb, framingArb, async (surface, big, framing) => {
        const codings = [big.coding, ...big.outer];
        const wire = once(`big ${big.decoded} ${codings.join()}${big.stored ? ' stored' : ''}`, () =>
          big.outer.length > 0 || (big.coding === 'gzip' && !big.stored)
            ? encode(gzipMembers(big.decoded), big.outer)
            : encode(Buffer.alloc(big.decoded, ' ').fill('{}', big.decoded - 2), [big.coding], big.stored),
        );
        const DEADLINE = 10_000;
        const describeCase = (): string => `${surface}: ${big.decoded} bytes decoded from ${wire.length} (${codings.join(', ')}${big.stored ? ' stored' : ''}, ${framing})`;
        const { outcome, pulled, grew, ms } = await runCase(surface, { wire, encoding: codings.join(', ') }, framing, [], undefined, DEADLINE, describeCase);
        const context = `${describeCase()} -> ${describeOutcome(outcome)}, pulled ${pulled}, grew ${(grew / MiB).toFixed(1)} MiB in ${Math.round(ms)} ms`;
        expect(ms, context).toBeLessThan(DEADLINE + MARGIN);
        expect(grew, context).toBeLessThan(BIG_MEMORY_LIMIT);
        expect(pulled, context).toBeLessThanOrEqual(Math.min(big.decoded, MAX_BODY_BYTES + SLACK));
        if (big.decoded <= MAX_BODY_BYTES) {
          expect('value' in outcome, `rejected within the limit: ${context}`).toBe(true);
          const { value } = outcome as { value: unknown };
          // Not compared whole: a 16 MiB string in a diff helps no one.
          if (surface === 'fetchWithRetry') expect([typeof value, String(value).length, String(value).slice(-2)], context).toEqual(['string', MAX_BODY_BYTES, '{}']);
          else expect(outcome, context).toEqual({ value: {} });
        } else expectOversized(surface, outcome, MAX_BODY_BYTES, context);
      }),
      {
        numRuns: slowRuns(24),
        // Always tried: 16 MiB exactly in gzip's stored blocks (more bytes on the wire than decoded), and a GiB in two codings.
        examples: [
          ['poll', { decoded: MAX_BODY_BYTES, coding: 'gzip', outer: [], stored: true }, 'length'],
          ['fetch-state', { decoded: 1024 * MiB, coding: 'gzip', outer: ['deflate'], stored: false }, 'close'],
        ],
      },
    );
  }, 240_000);
});
