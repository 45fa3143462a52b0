/** Schemes whose URLs the WHATWG parser reads with an authority whatever the slashes (`http:\\u:p@h`). */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);
/**
 * Where a token's authority starts: after its first `scheme://` or `//`
 * (either slash, as the URL parser allows), which may follow a few
 * characters without a colon (`--proxy=http://`); otherwise at its start.
 */
const PREFIX = /^(?:[^@:]*?[^a-z\d+.\-@:])?(?:[a-z][a-z\d+.-]*:)?[\\/]{2}/i;
/** A token of free text: quotes, brackets and whitespace end it. */
const TOKEN = /[^\s'"`<>()]*@[^\s'"`<>()]*/g;

/**
 * The one function through which the CLI prints anything that may hold a
 * URL (the polled URL, errors naming it, usage errors echoing an argument):
 * the userinfo of every URL-ish token becomes `***`, user name included
 * (tokens are often put there). A token the URL parser reads with
 * credentials (`https://u:p@h/`, `sftp://u:p@h/`) is redacted exactly; one
 * it reads without any, under an http(s)-like scheme, is left alone
 * (`http://h/users/@me`); anything else holding an `@`
 * (`user:pw@host/`, `//user:pw@host`, `http://user:pa/ss@host`, which no
 * parser accepts) loses everything from the start of its authority to its
 * last `@`: over-redacting a malformed argument costs nothing.
 */
export function redactCredentials(text: string): string {
  return text.replace(TOKEN, redactUrl);
}

/** {@link redactCredentials} for one URL or command-line argument, taken whole (spaces and quotes included). */
export function redactUrl(token: string): string {
  let url: URL | undefined;
  try {
    url = new URL(token);
  } catch {
    // not a URL the parser accepts: redacted by its shape below
  }
  // Already redacted: left as it is, so redacting twice changes nothing.
  if (url?.username === '***' && url.password === '') return token;
  if (url && (url.username || url.password)) {
    url.username = '***';
    url.password = '';
    return url.href;
  }
  if (url && SPECIAL.has(url.protocol)) return token;
  const start = PREFIX.exec(token)?.[0].length ?? 0;
  const at = token.lastIndexOf('@');
  return at < start ? token : `${token.slice(0, start)}***${token.slice(at)}`;
}
