import { redactUrl } from '../kit/index.js';

/** A token of free text: quotes, brackets and whitespace end it. */
const TOKEN = /[^\s'"`<>()]+/g;
/** What makes a token worth redacting: userinfo, a query or a fragment may follow. */
const MAY_HOLD_SECRETS = /[@?#]/;

/**
 * The one function through which the CLI prints free text that may hold a
 * URL (errors naming it, usage errors echoing an argument): every token
 * holding an `@`, `?` or `#` is redacted by the library's own rule
 * (`redactUrl`: userinfo, query values and fragment become `***`), so the
 * CLI hides exactly what pollite's messages hide. A URL the CLI prints on
 * its own goes through `redactUrl` directly.
 */
export function redactCredentials(text: string): string {
  return text.replace(TOKEN, (token) => (MAY_HOLD_SECRETS.test(token) ? redactUrl(token) : token));
}
