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

/** The most a default parser reads of a body: a peer controls its size, so the buffer is bounded. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The body as text, at most `limit` bytes: a larger one is cancelled and a
 * `RangeError` thrown, so an endless or oversized body cannot grow the heap.
 * A Content-Length within the limit is read in one go (fetch holds the body
 * to it); without one, the stream is counted as it arrives.
 */
export async function readText(response: Response, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared <= limit || !response.body) return response.text();
  const reader = response.body.getReader();
  const tooLarge = (): never => {
    reader.cancel().catch(() => undefined);
    throw new RangeError(`The body is larger than ${limit} bytes`);
  };
  if (declared > limit) tooLarge();
  // Decoded as it arrives (a character split between chunks waits for its rest), as Response.text() decodes.
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    if ((size += value.byteLength) > limit) tooLarge();
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * The default parser: JSON of at most 16 MiB (a larger body is a
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
