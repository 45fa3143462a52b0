/**
 * Whether fetch can send `body` again on a retry. Strings, Blobs, buffers,
 * FormData and URLSearchParams are re-read on every send; a stream (or an
 * async iterable, which Node's fetch accepts) is consumed by the first.
 */
export function isReplayableBody(body: unknown): boolean {
  return (
    body == null ||
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams)
  );
}
