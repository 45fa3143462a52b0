const HEADER = 'idempotency-key';

/** A random UUID v4: `crypto.randomUUID()`, or the same from `getRandomValues` where only that exists (insecure origins). */
function randomUuid(): string {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  const bytes = webCrypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The `Idempotency-Key` of one `fetchWithRetry` call, or `null` when it has
 * none: the given string; for `true`, the header the caller set, else a new
 * random UUID.
 */
export function idempotencyKeyFor(option: boolean | string | undefined, headers: Headers): string | null {
  if (typeof option === 'string') return option;
  if (option !== true) return null;
  return headers.get(HEADER) ?? randomUuid();
}

/** Puts `key` on `headers` (a copy). */
export function withIdempotencyKey(headers: Headers, key: string): Headers {
  const copy = new Headers(headers);
  copy.set(HEADER, key);
  return copy;
}
