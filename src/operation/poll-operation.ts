import type { ResumedRun, RunCheckpoint } from '../engine/resume-point.js';
import { HttpError } from '../errors/http-error.js';
import { redactUrl } from '../errors/redact-url.js';
import { timeoutError } from '../errors/timeout-error.js';
import { checkInput } from '../http/check-input.js';
import { serverSays, type WaitSource } from '../http/server-wait.js';
import { spread } from '../policy/spread.js';
import { requestFactory, type RequestFactory } from '../http/request.js';
import { refuse } from '../options/check.js';
import { poll } from '../poll/poll.js';
import { fetchWithRetry } from '../retry/fetch-with-retry.js';
import { idempotencyKeyFor } from '../retry/idempotency-key.js';
import { checkFetchInit } from '../retry/normalize-retry-options.js';
import type { FetchRetryOptions } from '../retry/retry-options.js';
import { carriedFrom, initFor } from './carried-init.js';
import { normalizeOperationOptions, operationOptionNames, type NormalizedOperationOptions } from './normalize-operation-options.js';
import { OperationFailedError } from './operation-failed-error.js';
import type { OperationAnswer, OperationState, PollOperationInit } from './operation-options.js';
import { fetchResult, resultIn, resultUrl, type OperationStart } from './operation-result.js';
import { failureMessage, monitorOf, operationState, resolveUrl } from './operation-state.js';
import { readBody, readStatus } from './read-body.js';
import { firstWait } from './first-wait.js';
import { preferredStart } from './prefer-start.js';
import { preferWait } from './prefer-wait.js';
import { requestable } from './server-url.js';

/** What named the monitor, for the error that refuses it. */
const MONITOR_NAMED_BY = {
  'operation-location': 'the Operation-Location header',
  'azure-asyncoperation': 'the Azure-AsyncOperation header',
  location: "the 202's Location header",
  option: '`operationUrl`',
} as const;

/** Where the operation stands after one monitor answer: `isDone` and `isFailed` over the conventions. */
async function stateOf<TStatus>(answer: OperationAnswer<TStatus>, monitor: string, o: NormalizedOperationOptions<TStatus>['own']): Promise<OperationState> {
  const byConvention = operationState(answer, monitor);
  if (o.isDone && !(await o.isDone(answer.body, answer))) return 'running';
  if (!o.isDone && byConvention === 'running') return 'running';
  if (o.isFailed) return (await o.isFailed(answer.body, answer)) ? 'failed' : 'succeeded';
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

/** The start's checkpoint, under the operation's: its key and wait saved there, settled with the whole operation, not with the start. */
const startCheckpoint = (run: ResumedRun): RunCheckpoint => ({ begin: async ({ timeout }) => ({ ...run, timeout, settle: (call) => call }) });

/** What the start came to: the operation's monitor to poll, or the result at once. */
type Started = { result: unknown } | { sent: Response; story: OperationStart };

/** Sends the start request and reads its answer: the monitor it names (or `operationUrl` finds), else the result. */
async function startOperation<TStatus>(input: string | URL | Request, startInit: RequestInit, start: RequestFactory, o: NormalizedOperationOptions<TStatus>, retry: FetchRetryOptions): Promise<Started> {
  const { own } = o;
  const sent = await fetchWithRetry(input, { ...startInit, retry: { idempotencyKey: own.idempotencyKey, ...retry } });
  if (!sent.ok) throw new HttpError(sent, start.url);
  const base = sent.url || start.url;
  const named = monitorOf({ status: sent.status, headers: sent.headers, url: base });
  const answer = await answerOf(sent, start.url, (response) => readBody(response, start.url, own.parse, named !== undefined || response.status === 202));
  const given = own.operationUrl?.(answer);
  const chosen = given == null ? undefined : resolveUrl(String(given), base);
  if (given != null && !chosen) refuse('operationUrl', `a function returning a URL, got ${redactUrl(String(given))}`);
  const found = chosen ? { url: chosen, via: 'option' as const } : named;
  const monitor = found && { url: requestable(found.url, MONITOR_NAMED_BY[found.via]), via: found.via };
  if (monitor) return { sent, story: { url: start.url, method: start.method, location: resolveUrl(sent.headers.get('location'), base), monitor } };
  if (sent.status !== 202) return { result: answer.body };
  throw new TypeError(`Expected \`operationUrl\` to find the operation: the 202 from ${redactUrl(base)} names no Operation-Location, Azure-AsyncOperation or Location`);
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
 * The polls and the result's request carry every field of the start's
 * init but its method, body and integrity; its credentials (its headers
 * but `Accept`, `Accept-Language`, `Content-Language` and `User-Agent`,
 * and `credentials: 'include'`) only to the start URL's origin and
 * `trustedOrigins`. Only http and https URLs a server names are requested.
 *
 * Resolves with the result. Rejects with `OperationFailedError` (the
 * operation failed or was canceled), `HttpError` (a start, poll or result
 * answer that is not retried, or whose retries ran out), `PollGaveUpError`,
 * `ParseError`, a `TimeoutError` DOMException (`operation.timeout`, the
 * result's body included), or `init.signal`'s reason. Bad options, a 202
 * that names no monitor and a monitor or result URL that is not http or
 * https reject with a `TypeError` (bad options before anything is sent).
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
  if ((typeof __DEV__ === 'undefined' || __DEV__) && init) checkFetchInit(init, 'operation', operationOptionNames());
  const { operation, ...startInit } = init ?? {};
  if (operation !== undefined && (typeof operation !== 'object' || operation === null)) refuse('operation', 'an object');
  const o = normalizeOperationOptions(operation);
  // Read as a Request: a string or a URL has none of its fields. fetchWithRetry refuses a signal that is none, before the start is sent.
  const request = input as Partial<Request>;
  const signal = startInit.signal ?? request.signal ?? undefined;
  const { env, own } = o;
  const start = requestFactory(input, startInit);
  // A resumed operation goes on from what its earlier run saved: at its monitor, or its start sent again only with the saved key.
  const run = own.resume && (await own.resume.beginOperation({ method: start.method, url: start.url, idempotencyKey: idempotencyKeyFor(own.idempotencyKey, new Headers(start.headers)), timeout: own.timeout, now: () => env.now() }));
  const timeout = run ? run.timeout : own.timeout;
  const deadline = timeout === undefined ? Infinity : env.now() + timeout;
  /** The time left, for each step's own deadline; `undefined` without one. */
  const left = (): number | undefined => {
    if (deadline === Infinity) return undefined;
    const ms = deadline - env.now();
    if (ms <= 0) throw timeoutError(`The operation ran past its ${own.timeout} ms deadline`);
    return ms;
  };
  const retryOptions = (): FetchRetryOptions => {
    const { fetch, cooldown } = o.poll;
    return { env, maxRetryAfter: o.maxRetryAfter, fetch, cooldown, timeout: left() };
  };

  const following = follow();
  return run ? run.settle(following, [signal]) : following;

  async function follow(): Promise<TResult> {
    let story: OperationStart;
    let first = 0;
    /** The signal of the start answer that set the first wait, if the server asked for it. */
    let source: WaitSource | undefined;
    if (run?.monitor) {
      // The start was answered before: its monitor is polled, no sooner than the saved wait (the checkpoint holds).
      story = { url: start.url, method: start.method, location: run.monitor.location, monitor: { url: run.monitor.url, via: run.monitor.via } };
    } else {
      const keyed = run?.idempotencyKey ? { idempotencyKey: run.idempotencyKey, resume: startCheckpoint(run) } : run && { resume: startCheckpoint(run) };
      // With preferWait the start asks to be answered with the result within the wait, else with its 202.
      const preferred = own.preferWait ? preferredStart(startInit, start, own.preferWait, o.poll.fetch, () => env.now()) : undefined;
      const started = await startOperation(input, preferred?.init ?? startInit, start, o, { ...retryOptions(), ...(preferred && { fetch: preferred.fetch }), ...keyed });
      if ('result' in started) return started.result as TResult;
      const { sent } = started;
      story = started.story;
      // The start answer's wait (its Retry-After, a rate-limit reset), spread under the cap as the engine spreads a 2xx's; else the interval.
      const said = serverSays(sent.status, sent.headers, env.now());
      const asked = said && !said.stop ? said : null;
      const interval = preferred ? preferred.firstWait(sent, o.interval, env.now()) : o.interval;
      first = asked === null ? interval : spread(asked.ms, env.random(), o.maxRetryAfter);
      source = asked?.source;
      await run?.polling({ url: story.monitor.url, via: story.monitor.via, location: story.location }, env.now() + first, source);
    }
    const { monitor } = story;
    const carried = carriedFrom({ url: start.url, headers: start.headers, init: startInit, request }, own.headers, own.trustedOrigins);
    let state = 'running' as OperationState;
    const final = await poll<OperationAnswer<TStatus>>(monitor.url, {
      ...o.poll,
      init: initFor(monitor.url, carried),
      ...(signal && { signal }),
      timeout: left(),
      // preferWait first: its run adds Prefer before a sharing feature keys the poll, and joins its pace last.
      use: [...(own.preferWait ? [preferWait(own.preferWait)] : []), ...(o.poll.use ?? []), run ? run.feature : firstWait(first, source)],
      parse: (response) => answerOf(response, monitor.url, (r) => readStatus(r, own.parse)) as Promise<OperationAnswer<TStatus>>,
      onUpdate: (answer) => own.onUpdate?.(answer.body),
      ...(own.onEvent && { onEvent: own.onEvent }),
      isDone: async (answer) => (state = await stateOf(answer, monitor.url, own)) !== 'running',
    });

    if (state === 'failed' || state === 'canceled') throw new OperationFailedError(state, final.body, monitor.url, failureMessage(final.body));
    if (!o.fetchResult) return final.body as unknown as TResult;
    const target = resultUrl(final, story);
    if (!target) return resultIn(final) as TResult;
    const url = requestable(target.url, target.namedBy);
    return (await fetchResult(url, { ...initFor(url, carried), ...(signal && { signal }) }, retryOptions(), own.parse, () => void left())) as TResult;
  }
}
