import type { PollCall } from '../poll/feature.js';

/**
 * Headers that name a request or the program that sends it, never a user,
 * and that a server does not answer by: distributed-tracing ids (W3C Trace
 * Context and Baggage, B3, Sentry, AWS X-Ray, Google Cloud), request and
 * correlation ids, and `User-Agent`. A per-process trace id or host name in
 * them would otherwise split every share; the loop sends its leader's.
 */
export const UNCOMPARED_HEADERS: ReadonlySet<string> = new Set([
  'traceparent',
  'tracestate',
  'baggage',
  'b3',
  'x-b3-traceid',
  'x-b3-spanid',
  'x-b3-parentspanid',
  'x-b3-sampled',
  'x-b3-flags',
  'sentry-trace',
  'x-amzn-trace-id',
  'x-cloud-trace-context',
  'x-request-id',
  'x-correlation-id',
  'user-agent',
]);

/**
 * The request part of what makes two polls the same poll: method, URL,
 * headers (names lower-cased, sorted, less the {@link UNCOMPARED_HEADERS} ones) and body, with its kind: fetch adds a
 * Content-Type of its own for a string (`text/plain;charset=UTF-8`, `''`
 * included) and for URLSearchParams
 * (`application/x-www-form-urlencoded;charset=UTF-8`), none for no body, so
 * `''` and no body, or `'a=1'` and `new URLSearchParams('a=1')`, are
 * different requests. `undefined` when the body cannot be compared without
 * reading it (a stream, Blob, FormData, a Request's own body): such a poll
 * runs on its own rather than risk answering one caller with another's
 * data. `extra` (lines of `\n@name value`, from `shareIdentity`) goes
 * between the headers and the body: no header line starts with `@`, and no
 * line holds a raw newline, so no two requests make one key.
 */
export function shareKey(request: PollCall<unknown>['request'], extra = ''): string | undefined {
  const { body } = request;
  const text = body == null ? '' : typeof body === 'string' ? `s${body}` : body instanceof URLSearchParams ? `u${body}` : undefined;
  if (text === undefined) return undefined;
  const headers = Object.keys(request.headers)
    .filter((name) => !UNCOMPARED_HEADERS.has(name))
    .sort()
    .map((name) => `\n${name}: ${request.headers[name]}`)
    .join('');
  return `${request.method} ${request.url}${headers}${extra}\n\n${text}`;
}
