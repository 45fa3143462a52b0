/**
 * A strong entity tag for `bytes`: the SHA-256 digest (Web Crypto, so it runs
 * in every runtime) in base64url, quoted. Same bytes, same tag, on every
 * server instance, so a poller may hit any replica.
 */
export async function strongETag(bytes: BufferSource): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `"${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}"`;
}
