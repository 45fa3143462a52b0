/**
 * Counts the body bytes of `response` as they arrive, through a clone, so
 * the caller may still read or cancel the original. Works with and without
 * Content-Length (chunked answers). Resolves once the body has been counted.
 */
export function countBodyBytes(response: Response, onBytes: (bytes: number) => void): Promise<void> {
  if (response.body === null) return Promise.resolve();
  return response
    .clone()
    .arrayBuffer()
    .then(
      (buffer) => onBytes(buffer.byteLength),
      () => undefined, // an aborted body counts as nothing more
    );
}
