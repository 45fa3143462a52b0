import { ParseError } from '../errors/parse-error.js';

/** Cancels a body nobody will read, so the connection can be reused. */
export function discardBody(response: Response): void {
  try {
    if (!response.bodyUsed) response.body?.cancel().catch(() => undefined);
  } catch {
    // A locked or already-cancelled stream: nothing left to free.
  }
}

/** The default parser: JSON, with 204, 205 and an empty body (a HEAD request's) read as `undefined`. */
export async function parseJson(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) {
    discardBody(response);
    return undefined;
  }
  const text = await response.text();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Runs `parse`, turning its failure into a {@link ParseError} that names the response. */
export async function parseWith<T>(
  parse: (response: Response) => Promise<T>,
  response: Response,
  url: string,
  signal: AbortSignal | undefined,
): Promise<T> {
  try {
    return await parse(response);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new ParseError(response, url, error);
  }
}
