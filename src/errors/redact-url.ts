/** Schemes the WHATWG parser reads with an authority whatever the slashes (`http:\\u:p@h`): one of theirs that parses without credentials has none. */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);
/**
 * Where the authority of text the parser refuses starts: after its first
 * `scheme://` or `//` (either slash, as the parser allows), which may follow
 * a few characters without a colon (`--proxy=http://`); otherwise at its start.
 */
const PREFIX = /^(?:[^@:]*?[^a-z\d+.\-@:])?(?:[a-z][a-z\d+.-]*:)?[\\/]{2}/i;

/** One `name=value` of a query with its value hidden; a part without `=` may be a bare token, so it goes whole. */
const hideValue = (part: string): string => {
  const eq = part.indexOf('=');
  return !part ? part : eq < 0 ? '***' : `${part.slice(0, eq)}=***`;
};

/** `text` with every query value and the fragment hidden: `?api_key=***&sig=***#***`. */
function hideQuery(text: string): string {
  const hash = text.indexOf('#');
  const head = hash < 0 ? text : text.slice(0, hash);
  const question = head.indexOf('?');
  const query = question < 0 ? '' : `?${head.slice(question + 1).split('&').map(hideValue).join('&')}`;
  const fragment = hash < 0 ? '' : hash === text.length - 1 ? '#' : '#***';
  return (question < 0 ? head : head.slice(0, question)) + query + fragment;
}

/**
 * A URL as pollite prints it, in an error message or anywhere else a log
 * may see it: what commonly holds a secret is `***`, the rest is kept so a
 * reader can tell which request it was.
 *
 * - the userinfo (`https://***@host/`), user name included (tokens are
 *   often put there);
 * - every query value, names kept (`?api_key=***&sig=***`; a part without
 *   `=` goes whole, as it may be a bare token);
 * - the fragment (`#***`: OAuth's implicit flow puts tokens there).
 *
 * Scheme, host, port and path are kept: a secret in the path (a webhook's
 * token) cannot be told from an id. Text the URL parser refuses is redacted
 * by its shape: everything from the start of its authority to its last `@`
 * (`user:pw@host/`, `//user:pw@host`, `http://user:pa/ss@host`), then its
 * query and fragment as above; over-redacting malformed text costs nothing.
 * Redacting twice changes nothing.
 *
 * @example
 * redactUrl('https://user:pw@api.example.com/jobs/42?api_key=abc&page=2#token=xyz');
 * // 'https://***@api.example.com/jobs/42?api_key=***&page=***#***'
 */
export function redactUrl(url: string | URL): string {
  const text = String(url);
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    // not a URL the parser accepts: redacted by its shape below
  }
  if (parsed && (parsed.username || parsed.password)) {
    parsed.username = '***';
    parsed.password = '';
    return hideQuery(parsed.href);
  }
  if (parsed && SPECIAL.has(parsed.protocol)) return hideQuery(text);
  const start = PREFIX.exec(text)?.[0].length ?? 0;
  const at = text.lastIndexOf('@');
  return hideQuery(at < start ? text : `${text.slice(0, start)}***${text.slice(at)}`);
}
