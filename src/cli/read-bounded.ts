/** What {@link readBounded} read. */
export interface BoundedRead {
  /** The first bytes of the body, `limit` at most. */
  bytes: Uint8Array;
  /** The body ended within the limit (and the wait): `bytes` is all of it. */
  complete: boolean;
  /** More than `limit` bytes came: `bytes` is a prefix. */
  overflowed: boolean;
}

export interface BoundedReadOptions {
  /** The most bytes kept. */
  limit: number;
  /** Stop reading after this long, ms, keeping what came (a body that stalls). @default no limit */
  waitMs?: number;
  /** Called with the size of every chunk received, kept or not. */
  onBytes?: (bytes: number) => void;
}

const EXPIRED = Symbol('expired');

/**
 * Reads `body` until it ends, more than `limit` bytes have come, or `waitMs`
 * has passed, then cancels the rest, so nothing a server sends can grow
 * memory past `limit` plus one chunk. Never tees or clones: the stream is
 * consumed. Rejects as the stream does (a connection that broke off, an
 * abort), after counting what came.
 */
export async function readBounded(body: ReadableStream<Uint8Array>, options: BoundedReadOptions): Promise<BoundedRead> {
  const { limit, waitMs, onBytes } = options;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let complete = false;
  let overflowed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired =
    waitMs === undefined ? undefined : new Promise<typeof EXPIRED>((resolve) => (timer = setTimeout(() => resolve(EXPIRED), waitMs)));
  try {
    for (;;) {
      const next = await (expired ? Promise.race([reader.read(), expired]) : reader.read());
      if (next === EXPIRED) break;
      if (next.done) {
        complete = true;
        break;
      }
      onBytes?.(next.value.byteLength);
      const room = limit - kept;
      if (next.value.byteLength > room) {
        overflowed = true;
        // A copy: a view would keep the whole chunk alive.
        if (room > 0) chunks.push(next.value.slice(0, room));
        kept = limit;
        break;
      }
      chunks.push(next.value);
      kept += next.value.byteLength;
    }
  } finally {
    clearTimeout(timer);
    if (!complete) reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, complete, overflowed };
}
