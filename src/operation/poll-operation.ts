import { HttpError } from '../errors/http-error.js';
import { timeoutError } from '../errors/timeout-error.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { requestFactory, type RequestFactory } from '../http/request.js';
import { checkInput, refuse, signal as signalCheck } from '../options/check.js';
import { poll } from '../poll/poll.js';
import { fetchWithRetry } from '../retry/fetch-with-retry.js';
import type { FetchRetryOptions } from '../retry/retry-options.js';
import { normalizeOperationOptions, type NormalizedOperationOptions } from './normalize-operation-options.js';
import { OperationFailedError } from './operation-failed-error.js';
import type { OperationAnswer, OperationState, PollOperationInit } from './operation-options.js';
import { fetchResult, resultIn, resultUrl, type OperationStart } from './operation-result.js';
import { failureMessage, monitorOf, operationState, resolveUrl } from './operation-state.js';
import { readBody, readStatus } from './read-body.js';
import { retryAfterFloor } from './retry-after-floor.js';

/** Headers of the start that belong to its body or its write: not carried to the polls. */
const START_ONLY = new Set(['content-type', 'content-length', 'content-encoding', 'idempotency-key']);

const isRequest = (input: string | URL | Request): input is Request => typeof input === 'object' && !(input instanceof URL);

/** Where the operation stands after one monitor answer: `isDone` and `isFailed` over the conventions. */
async function stateOf<TStatus>(answer: OperationAnswer<TStatus>, o: NormalizedOperationOptions<TStatus>['own']): Promise<OperationState> {
  const byConvention = operationState(answer);
  if (o.isDone && !(await o.isDone(answer.body, answer))) return 'running';
  if (!o.isDone && byConvention === 'running') return 'running';
  if (o.isFailed) return o.isFailed(answer.body, answer) ? 'failed' : 'succeeded';
  return byConvention === 'running' ? 'succeeded' : byConvention;
}

/** The answer as an {@link OperationAnswer}, its body read. */
const answerOf = async (response: Response, url: string, body: (response: Response) => Promise<unknown>): Promise<OperationAnswer> => ({
  status: response.status,
  headers: response.headers,
  url: response.url || url,
  redirected: response.redirected,
  body: await body(response),
});

/** The start request's parts that the polls carry: its headers (less those of its body and write), credentials, mode, referrer policy. */
function monitorInit(start: RequestFactory, startInit: RequestInit, given: HeadersInit | undefined): RequestInit {
  const headers: Record<string, string> = {};
  if (given) new Headers(given).forEach((value, name) => (headers[name] = value));
  else for (const [name, value] of Object.entries(start.headers)) if (!START_ONLY.has(name)) headers[name] = value;
  const { credentials, mode, referrerPolicy } = startInit;
  return { headers, ...(credentials && { credentials }), ...(mode && { mode }), ...(referrerPolicy && { referrerPolicy }) };
}

/** What the start came to: the operation's monitor to poll, or the result at once. */
type Started = { result: unknown } | { sent: Response; story: OperationStart };

/** Sends the start request and reads its answer: the monitor it names (or `operationUrl` finds), else the result. */
async function startOperation<TStatus>(input: string | URL | Request, startInit: RequestInit, start: RequestFactory, o: NormalizedOperationOptions<TStatus>, retry: FetchRetryOptions): Promise<Started> {
  const { own } = o;
  const sent = await fetchWithRetry(input, { ...startInit, retry: { ...retry, ...(own.idempotencyKey !== undefined && { idempotencyKey: own.idempotencyKey }) } });
  if (!sent.ok) throw new HttpError(sent, start.url);
  const base = sent.url || start.url;
  const named = monitorOf({ status: sent.status, headers: sent.headers, url: base });
  const answer = await answerOf(sent, start.url, (response) => readBody(response, start.url, own.parse, named !== undefined || response.status === 202));
  const given = own.operationUrl?.(answer);
  const chosen = given == null ? undefined : resolveUrl(String(given), base);
  if (given != null && !chosen) refuse('operationUrl', `a function returning a URL, got ${String(given)}`);
  const monitor = chosen ? { url: chosen, via: 'option' as const } : named;
  if (monitor) return { sent, story: { url: start.url, method: start.method, location: resolveUrl(sent.headers.get('location'), base), monitor } };
  if (sent.status !== 202) return { result: answer.body };
  throw new TypeError(`Expected \`operationUrl\` to find the operation: the 202 from ${base} names no Operation-Location, Azure-AsyncOperation or Location`);
}

/**
 * Starts a long-running operation and sees it through: sends the start
 * request (a POST or PATCH once, unless `operation.idempotencyKey` makes it
 * safe to retry; other methods retried as `fetchWithRetry` retries them),
 * finds its status monitor (`Operation-Location`, `Azure-AsyncOperation`,
 * or a 202's `Location`, resolved against the URL that answered; or
 * `operationUrl`), polls it with `poll` (conditional requests, backoff,
 * cooldowns, pauses, `use`), the first poll after the start's Retry-After
 * (else `interval`) and each next one no sooner than a monitor answer's
 * Retry-After, until the conventions (or `isDone`) say it is over; then
 * fetches the result. A 200 or 201 start that names no monitor is the
 * result at once.
 *
 * Resolves with the result. Rejects with `OperationFailedError` (the
 * operation failed or was canceled), `HttpError` (a start, poll or result
 * answer that is not retried, or whose retries ran out), `PollGaveUpError`,
 * `ParseError`, a `TimeoutError` DOMException (`operation.timeout`), or
 * `init.signal`'s reason. Bad options, and a 202 that names no monitor,
 * reject with a `TypeError` (bad options before anything is sent).
 *
 * @example
 * const report = await pollOperation('/api/reports', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ month: '2025-01' }),
 *   operation: { idempotencyKey: true, timeout: 600_000, onUpdate: (status) => render(status) },
 * });
 */
export async function pollOperation<TResult = unknown, TStatus = unknown>(input: string | URL | Request, init?: PollOperationInit<TStatus>): Promise<TResult> {
  checkInput(input);
  if (init !== undefined && (typeof init !== 'object' || init === null)) refuse('init', 'an object');
  const { operation, ...startInit } = init ?? {};
  if (operation !== undefined && (typeof operation !== 'object' || operation === null)) refuse('operation', 'an object');
  const o = normalizeOperationOptions(operation);
  const signal = startInit.signal ?? (isRequest(input) ? input.signal : undefined) ?? undefined;
  if (signal !== undefined && !signalCheck[0](signal)) refuse('signal', signalCheck[1]);
  const { env, own } = o;
  const deadline = own.timeout === undefined ? Infinity : env.now() + own.timeout;
  /** The time left, for each step's own deadline; `undefined` without one. */
  const left = (): number | undefined => {
    if (deadline === Infinity) return undefined;
    const ms = deadline - env.now();
    if (ms <= 0) throw timeoutError(`The operation ran past its ${own.timeout} ms deadline`);
    return ms;
  };
  const retryOptions = (): FetchRetryOptions => {
    const timeout = left();
    const { fetch, cooldown } = o.poll;
    return { env, maxRetryAfter: o.maxRetryAfter, ...(fetch && { fetch }), ...(cooldown !== undefined && { cooldown }), ...(timeout !== undefined && { timeout }) };
  };

  const start = requestFactory(input, startInit);
  const started = await startOperation(input, startInit, start, o, retryOptions());
  if ('result' in started) return started.result as TResult;
  const { sent, story } = started;
  const { monitor } = story;
  const pollInit = monitorInit(start, startInit, own.headers);
  const firstWait = parseRetryAfter(sent.headers.get('retry-after'), { now: env.now(), max: o.maxRetryAfter }) ?? o.interval;
  let state = 'running' as OperationState;
  const timeout = left();
  const final = await poll<OperationAnswer<TStatus>>(monitor.url, {
    ...o.poll,
    init: pollInit,
    ...(signal && { signal }),
    ...(timeout !== undefined && { timeout }),
    use: [...(o.poll.use ?? []), retryAfterFloor(firstWait)],
    parse: (response) => answerOf(response, monitor.url, (r) => readStatus(r, own.parse)) as Promise<OperationAnswer<TStatus>>,
    onUpdate: (answer) => own.onUpdate?.(answer.body),
    ...(own.onEvent && { onEvent: own.onEvent }),
    isDone: async (answer) => (state = await stateOf(answer, own)) !== 'running',
  });

  if (state === 'failed' || state === 'canceled') throw new OperationFailedError(state, final.body, monitor.url, failureMessage(final.body));
  if (!o.fetchResult) return final.body as unknown as TResult;
  const target = resultUrl(final, story);
  if (!target) return resultIn(final) as TResult;
  return (await fetchResult(target, { ...pollInit, ...(signal && { signal }) }, retryOptions(), own.parse)) as TResult;
}
