import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { expect } from 'vitest';
import type { ListenerTracker } from '../helpers/event-listeners.js';

// The hostile tests' server: raw TCP (so HTTP can be broken at will), plain and TLS on one port
// with a certificate made here, a dispatcher of Node's fetch that trusts it, and the checks a case
// against it ends with (nothing left: timers, listeners, connections; memory bounded).

/** One request head as a {@link RawServer} read it. */
export interface RawRequest {
  method: string;
  path: string;
  /** Names lower-cased; a repeated header's values joined with `, `. */
  headers: Readonly<Record<string, string>>;
  /** Whether it came over TLS. */
  tls: boolean;
  /** The origin the client addressed: the scheme it used and its Host header (`https://localhost:4321`). */
  origin: string;
}

/**
 * A TCP server on 127.0.0.1 that answers each HTTP request with raw bytes of
 * the test's choosing: lies about Content-Length, broken status lines,
 * nothing at all. Counts requests (by their request line), keeps each head,
 * and counts open sockets, and those that carried a request.
 */
export interface RawServer {
  url: string;
  port: number;
  requests: number;
  /** Every request head, in the order they came. */
  heads: readonly RawRequest[];
  open: () => number;
  /** Connections that carried a request and are still open. */
  answering: () => number;
  close(): Promise<void>;
}

export interface RawServerOptions {
  /**
   * A certificate to answer TLS with, on the same port: a connection whose first byte opens a TLS
   * handshake is served over TLS, any other as plain HTTP. So `https://127.0.0.1:P` and
   * `http://127.0.0.1:P` are two origins of one server, differing in their scheme only.
   */
  tls?: { key: string; cert: string };
}

const HEAD_END = '\r\n\r\n';

function parseHead(text: string, tls: boolean): RawRequest {
  const [line = '', ...fields] = text.split('\r\n');
  const [method = '', path = ''] = line.split(' ');
  const headers: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    if (colon <= 0) continue;
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { method, path, headers, tls, origin: `${tls ? 'https' : 'http'}://${headers.host ?? ''}` };
}

export async function startRawServer(answer: (socket: Socket, index: number, request: RawRequest) => void, options: RawServerOptions = {}): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const answered = new Set<Socket>();
  const heads: RawRequest[] = [];
  const secureContext = options.tls && createSecureContext(options.tls);
  /** Reads request heads off `socket`, skipping each request's Content-Length body, and answers each. */
  const serve = (socket: Socket, tls: boolean): void => {
    socket.on('error', () => undefined);
    let buffered = '';
    let skip = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        if (skip > 0) {
          const skipped = Math.min(skip, buffered.length);
          buffered = buffered.slice(skipped);
          skip -= skipped;
          if (skip > 0) return;
        }
        const end = buffered.indexOf(HEAD_END);
        if (end < 0) return;
        const head = parseHead(buffered.slice(0, end), tls);
        buffered = buffered.slice(end + HEAD_END.length);
        const length = Number(head.headers['content-length']);
        skip = Number.isSafeInteger(length) && length > 0 ? length : 0;
        heads.push(head);
        answered.add(socket);
        socket.once('close', () => answered.delete(socket));
        answer(socket, heads.length - 1, head);
      }
    });
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (!secureContext) return serve(socket, false);
    // The first byte says which: 0x16 opens a TLS handshake. Put back, for whichever reads the socket.
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] !== 0x16) {
        serve(socket, false);
        socket.resume();
        return;
      }
      const secure = new TLSSocket(socket, { isServer: true, secureContext });
      secure.on('close', () => socket.destroy());
      serve(secure, true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/job`,
    port,
    get requests() {
      return heads.length;
    },
    heads,
    open: () => sockets.size,
    answering: () => answered.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- TLS: a certificate of the test's own, and a fetch dispatcher that trusts it -----------------

/** A DER element: tag, definite length, contents. */
const der = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
};
const sequence = (...parts: Buffer[]): Buffer => der(0x30, ...parts);
const hex = (text: string): Buffer => Buffer.from(text, 'hex');
const utcTime = (at: Date): Buffer => der(0x17, Buffer.from(`${at.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`));

/**
 * A self-signed X.509 certificate (ECDSA P-256, SHA-256) for `127.0.0.1` and
 * `localhost`, valid from a day ago to a day ahead, built with node:crypto
 * alone: no openssl binary, no fixture that expires.
 */
export function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = sequence(der(0x06, hex('2a8648ce3d040302')));
  const name = sequence(der(0x31, sequence(der(0x06, hex('550403')), der(0x0c, Buffer.from('pollite test')))));
  const now = Date.now();
  // subjectAltName: IP 127.0.0.1, DNS localhost.
  const altNames = sequence(der(0x06, hex('551d11')), der(0x04, sequence(der(0x87, hex('7f000001')), der(0x82, Buffer.from('localhost')))));
  const tbs = sequence(
    der(0xa0, der(0x02, hex('02'))),
    der(0x02, hex('01')),
    ecdsaWithSha256,
    name,
    sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(altNames)),
  );
  const certificate = sequence(tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
  const lines = certificate.toString('base64').match(/.{1,64}/g)!.join('\n');
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, cert: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n` };
}

/** A dispatcher of Node's fetch (`init.dispatcher`): undici's `dispatch`, and `close`. */
export interface FetchDispatcher {
  dispatch(options: { headers?: unknown }, handler: unknown): boolean;
  close(): Promise<void>;
}

/**
 * An Agent of Node's own fetch (the undici bundled with Node, whose Agent it does not export) made
 * with `options`: its class is read off the global dispatcher, which undici keeps under
 * `Symbol.for('undici.globalDispatcher.1')` for every copy of undici to share.
 */
export async function fetchAgent(options: object = {}): Promise<FetchDispatcher> {
  await fetch('data:,');
  const global = (globalThis as Record<symbol, { constructor: new (options: object) => FetchDispatcher } | undefined>)[Symbol.for('undici.globalDispatcher.1')];
  if (!global) throw new Error("Node's fetch set no global dispatcher: cannot make an Agent of its class");
  return new global.constructor(options);
}

/**
 * An Agent of Node's fetch that trusts `ca` (a {@link selfSignedCertificate}'s `cert`) and dials
 * IPv4, where a {@link RawServer} listens: `localhost` may resolve to ::1 first.
 */
export const trustingDispatcher = (ca: string): Promise<FetchDispatcher> => fetchAgent({ connect: { ca, family: 4 } });

// ---- what a case against one must leave behind, and what it may cost -----------------------------

/** The timers of the process, pollite's, undici's and the test's alike. */
export const timersNow = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

/** Polls `check` every 10 ms for up to `ms`: its last answer. */
export async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
}

let collect: (() => void) | undefined;
/** The garbage collector, exposed on first use (the flag is read when `gc` is looked up in a new context). */
async function gc(): Promise<void> {
  if (!collect) {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * Samples heap plus off-heap (Buffers, ArrayBuffers) every 5 ms from now: `stop()` is the peak's
 * growth over the start, in bytes.
 */
export async function sampleMemory(): Promise<{ stop(): number }> {
  const used = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  await gc();
  const base = used();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, used())), 5);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, used()) - base;
    },
  };
}

/** What {@link expectNothingLeft} reads of a case. */
export interface Leftovers {
  /** The case's servers, closed by the check. */
  servers: readonly RawServer[];
  /** pollite's armed timers (the env's). */
  pending: () => number;
  /** The caller's signal, if the case had one. */
  signal?: AbortSignal;
  /** The process's timers before the case ({@link timersNow}). */
  timersBefore: number;
  /** The test file's listener tracker, `forget()`-ed when the case started. */
  listeners: Pick<ListenerTracker, 'live' | 'added'>;
  /** Whether pollite must have listened to some signal (false where it is handed none and makes none). @default true */
  listens?: boolean;
  /**
   * EventTargets (by class) whose listeners are not counted, because the case checks them closed
   * otherwise: a closed BroadcastChannel keeps its listeners, and can never fire them.
   */
  closedTargets?: readonly string[];
}

/**
 * What must hold after any in-process call has settled and its caller let go of what it was
 * handed: no pollite timer armed, no listener of pollite's left on any signal or EventTarget (and
 * some were added: the count saw the run), none of anyone's on the caller's signal, every
 * connection that carried a request closed (one undici opened but never used may idle in its
 * pool), and no timer in the process beyond those there were before.
 */
export async function expectNothingLeft(left: Leftovers, context: string): Promise<void> {
  const { servers, pending, signal, timersBefore, listeners, listens = true, closedTargets = [] } = left;
  expect(pending(), `pollite timers still armed: ${context}`).toBe(0);
  const counted = (entry: string): boolean => !closedTargets.some((name) => entry.includes(`' on ${name}, added`));
  expect(listeners.live(undefined, 'code').filter(counted), `pollite's listeners left: ${context}`).toEqual([]);
  if (listens) expect(listeners.added('code'), `listeners pollite added: ${context}`).toBeGreaterThan(0);
  if (signal) expect(listeners.live(signal), `listeners left on the caller's signal: ${context}`).toEqual([]);
  const answering = (): number => servers.reduce((sum, server) => sum + server.answering(), 0);
  expect(await eventually(() => answering() === 0), `${answering()} answered connection(s) still open: ${context}`).toBe(true);
  await Promise.all(servers.map((server) => server.close()));
  // undici's own timers (keep-alive, its coarse clock) end a second after its last connection.
  expect(await eventually(() => timersNow() <= timersBefore), `timers: ${timersNow()} now, ${timersBefore} before: ${context}`).toBe(true);
}
