/**
 * Schemes `fetch` can request. Any other (`ftp:`, `file:`, `javascript:`,
 * `ws:`...) fails inside fetch as a TypeError that no retry can fix, so
 * pollite refuses it before anything is sent.
 */
const FETCHABLE = new Set(['http:', 'https:', 'data:', 'blob:']);

/** Schemes pollite follows when a *server* names a URL (a monitor, a result): the network's only. */
const NETWORK = new Set(['http:', 'https:']);

/** The schemes of {@link isFetchable}, for a message. */
export const FETCHABLE_SCHEMES = [...FETCHABLE].join(', ');

/** Whether the caller's URL has a scheme fetch can request. */
export const isFetchable = (url: URL): boolean => FETCHABLE.has(url.protocol);

/** Whether a URL a server handed pollite may be requested: http or https, nothing local or inline. */
export const isNetworkUrl = (url: URL): boolean => NETWORK.has(url.protocol);
