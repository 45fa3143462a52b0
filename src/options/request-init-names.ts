/**
 * The fields of fetch's `init` that a runtime reads: the standard ones,
 * Node's (undici), and the extensions of the other runtimes and
 * frameworks pollite runs on, so that none of them is refused as unknown.
 * A field missing here can still reach fetch: through your own `fetch`
 * option, which gets every call's `init` to add to.
 */
export const REQUEST_INIT_NAMES: readonly string[] = [
  // WHATWG fetch
  'method',
  'headers',
  'body',
  'signal',
  'cache',
  'credentials',
  'integrity',
  'keepalive',
  'mode',
  'priority',
  'redirect',
  'referrer',
  'referrerPolicy',
  'window',
  'duplex',
  // Node (undici)
  'dispatcher',
  // Chromium
  'attributionReporting',
  'browsingTopics',
  'targetAddressSpace',
  // Cloudflare Workers, Next.js, Deno
  'cf',
  'next',
  'client',
  // Bun
  'proxy',
  'tls',
  'verbose',
  'unix',
  'decompress',
];
