/**
 * SHA-256 of `text`, as 64 hex digits (Web Crypto: a secure context in a
 * browser). What names a shared loop wherever others can read the name (a
 * tab share's Web Lock and BroadcastChannel, a cluster job's Redis keys),
 * so that no URL, header value or key is in it.
 *
 * @example
 * const name = await sha256Hex(shareIdentity(call)!.key);
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
