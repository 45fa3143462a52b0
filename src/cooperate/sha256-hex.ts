/** SHA-256 of `text`, hex: what names a tab share's Web Lock and BroadcastChannel, so that no URL, header value or key is in a name that other scripts and devtools can read. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
