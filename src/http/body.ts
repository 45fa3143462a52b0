/** Cancels a body nobody will read, so the connection can be reused. */
export function discardBody(response: Response): void {
  try {
    // The body first: most bodies discarded are a 304's, which has none, and each getter costs.
    const { body } = response;
    if (body && !response.bodyUsed) body.cancel().catch(() => undefined);
  } catch {
    // A locked or already-cancelled stream: nothing left to free.
  }
}

/**
 * The most a default parser reads of a body, counted as decoded: a peer
 * controls its size, and under 2 KiB of brotli can decode to a gigabyte, so
 * the buffer is bounded.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The body as text, at most `limit` bytes: a larger one is cancelled and a
 * `RangeError` thrown, so an endless, oversized or compressed-bomb body
 * cannot grow the heap. The bytes are counted as fetch hands them over,
 * decoded (gzip, deflate, br; zstd where fetch knows it), whatever
 * Content-Length and Content-Encoding say: Content-Length is the size on the
 * wire, a cross-origin answer hides its Content-Encoding, and a Response a
 * wrapper built carries whatever headers it was given. So no
 * `Response.text()` shortcut (only a refusal, before reading, of an
 * unencoded body whose Content-Length is already past the limit), which would read the same stream unbounded (in
 * Node 20 it is slower than this for a body in one chunk, the usual poll's).
 */
export async function readText(response: Response, limit = MAX_BODY_BYTES, signal?: AbortSignal): Promise<string> {
  const { body } = response;
  if (!body) return '';
  const reader = body.getReader();
  // Stopped early (`signal`): the read is cancelled, and what came so far is the text.
  const stop = (): void => void reader.cancel().catch(() => undefined);
  const tooLarge = (): never => {
    reader.cancel().catch(() => undefined);
    throw new RangeError(`The body is larger than ${limit} bytes`);
  };
  // An unencoded body whose Content-Length is past the limit is refused before reading (an encoded one may
  // travel a little larger than it decodes; a cross-origin answer may hide its encoding).
  const { headers } = response;
  if (Number(headers.get('content-length')) > limit && !headers.has('content-encoding') && response.type !== 'cors') tooLarge();
  // Decoded as it arrives (a character split between chunks waits for its rest), as Response.text() decodes;
  // each chunk is held until the next comes, so a body in one chunk is decoded in one go (Node's fast path).
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  let held: Uint8Array | undefined;
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode(held);
      if ((size += value.byteLength) > limit) tooLarge();
      if (held) text += decoder.decode(held, { stream: true });
      held = value;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * The default parser: JSON of at most 16 MiB once decoded (past that the
 * read is cancelled with a `RangeError`, which `poll` reports as a
 * `ParseError`), with 204, 205 and an empty body (a HEAD request's) read as
 * `undefined`.
 */
export async function parseJson(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) {
    discardBody(response);
    return undefined;
  }
  const text = await readText(response);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
