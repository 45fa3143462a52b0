import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { MAX_BODY_BYTES } from '../../src/http/body.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** The codings fetch decodes in every Node pollite supports. */
export type Coding = 'gzip' | 'deflate' | 'br';
export const CODINGS: readonly Coding[] = ['gzip', 'deflate', 'br'];

const MiB = 2 ** 20;

/** A bomb's decoded size for the 16 MiB default: a MiB past it. */
export const PAST_BOUND = MAX_BODY_BYTES + MiB;
/** What a reader may pull past its bound: the chunks fetch decoded ahead of it (16 KiB each in Node: one was seen). */
export const READ_AHEAD = 256 * 1024;

const made = new Map<string, Buffer>();

/**
 * `decoded` bytes of valid JSON (spaces, then `{}`), compressed with
 * `coding`: a compression bomb of a few dozen bytes (br) to a few tens of
 * KiB (gzip, deflate) on the wire. Made once per size and coding.
 */
export function bomb(coding: Coding, decoded: number): Buffer {
  const key = `${coding} ${decoded}`;
  let wire = made.get(key);
  if (wire) return wire;
  const plain = Buffer.alloc(decoded, ' ');
  plain.write('{}', decoded - 2);
  if (coding === 'gzip' && decoded > MiB) {
    // Gzip members concatenate (RFC 1952 §2.2): one MiB of spaces compressed once and repeated, for speed.
    const member = gzipSync(Buffer.alloc(MiB, ' '), { level: 9 });
    const rest = decoded % MiB || MiB;
    wire = Buffer.concat([...Array<Buffer>(Math.ceil(decoded / MiB) - 1).fill(member), gzipSync(plain.subarray(decoded - rest), { level: 9 })]);
  } else if (coding === 'br') wire = brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  else wire = coding === 'gzip' ? gzipSync(plain, { level: 9 }) : deflateSync(plain, { level: 9 });
  made.set(key, wire);
  return wire;
}

/**
 * A server whose every answer is a 200 carrying {@link bomb}, with the
 * headers an honest server sends: the coding, and the Content-Length of the
 * bytes on the wire. Records how many wire bytes it wrote.
 */
export function bombServer(coding: Coding, decoded: number): Promise<TestServer> {
  const wire = bomb(coding, decoded);
  return startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': wire.length });
    res.end(wire);
  });
}

/**
 * Global fetch, with the body bytes handed to the reader counted as they
 * pass: decoded (fetch has undone the coding), before any parser sees them.
 * The answer keeps its status and headers, Content-Encoding included.
 */
export function countingFetch(): { fetch: typeof fetch; read: () => number } {
  let read = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: counting, read: () => read };
}
