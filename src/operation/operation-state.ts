import type { OperationAnswer, OperationState } from './operation-options.js';

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null;

/** Azure's terminal `status` values (and `properties.provisioningState`'s), lower-cased; every other string is still running. */
const TERMINAL: Record<string, OperationState> = { succeeded: 'succeeded', failed: 'failed', canceled: 'canceled', cancelled: 'canceled' };

/** The status string a body carries: Azure's `status`, else ARM's `properties.provisioningState`. */
function statusField(body: Body): string | undefined {
  if (typeof body.status === 'string') return body.status;
  const properties = body.properties;
  return isObject(properties) && typeof properties.provisioningState === 'string' ? properties.provisioningState : undefined;
}

/** What a body says of the operation by the conventions: Google's `done`, else Azure's `status` (or ARM's `provisioningState`); `undefined` when it says neither. */
function statedState(body: unknown): OperationState | undefined {
  if (!isObject(body)) return undefined;
  if (typeof body.done === 'boolean') return !body.done ? 'running' : body.error != null ? 'failed' : 'succeeded';
  const status = statusField(body);
  return status === undefined ? undefined : (TERMINAL[status.toLowerCase()] ?? 'running');
}

/** A URL's path without its trailing slashes: `/ops/1/` is `/ops/1`. */
const pathOf = (url: string): string => new URL(url).pathname.replace(/\/+$/, '');

/**
 * Whether fetch followed a redirect away from the monitor to the result (a
 * 303 See Other): the URL that answered has another path than the
 * monitor's, beyond a trailing slash, and the answer is not a 202. A
 * redirect that keeps the path (a 301 adding a trailing slash, http to
 * https, another host, another query) only moved the monitor. fetch does
 * not tell which status redirected, so the path is the sign.
 */
export const atResult = (answer: Pick<OperationAnswer, 'status' | 'url' | 'redirected'>, monitor: string): boolean =>
  answer.redirected && answer.status !== 202 && pathOf(answer.url) !== pathOf(monitor);

/**
 * Where an operation stands by the conventions, from one 2xx answer of its
 * status monitor (at `monitor`), as a pure function:
 *
 * - fetch followed a redirect to the result ({@link atResult}): the
 *   operation is over; it failed (or was canceled) only if the result says
 *   so by the conventions below; any other word is the result's own state
 *   (a created machine is `Running`);
 * - Google's `done`: `true` with an `error` failed, `true` otherwise
 *   succeeded, `false` running;
 * - Azure's `status` (or ARM's `properties.provisioningState`), any case:
 *   Succeeded, Failed, Canceled (or Cancelled); any other string running;
 * - a body that says none of these: a 202 is running, any other 2xx the
 *   end (the monitor answers with the result itself).
 *
 * A redirect that stays at the monitor changes nothing: its body decides.
 */
export function operationState(answer: Pick<OperationAnswer, 'status' | 'body' | 'url' | 'redirected'>, monitor: string): OperationState {
  const stated = statedState(answer.body);
  if (atResult(answer, monitor)) return stated === 'failed' || stated === 'canceled' ? stated : 'succeeded';
  return stated ?? (answer.status === 202 ? 'running' : 'succeeded');
}

/** The error message a failed operation's body carries (Azure's and Google's `error.message`), if any. */
export function failureMessage(body: unknown): string | undefined {
  const error = isObject(body) ? body.error : undefined;
  return isObject(error) && typeof error.message === 'string' ? error.message : undefined;
}

/** Headers that name a status monitor, strongest first; `Location` only on a 202 (on a 201 it names the created resource). */
const MONITOR_HEADERS = ['operation-location', 'azure-asyncoperation'] as const;

/** `reference` resolved against `base`; `undefined` for one no URL can be made of (a header is the server's, not a bug of the caller's). */
export const resolveUrl = (reference: string | null | undefined, base: string): string | undefined =>
  reference && URL.canParse(reference, base) ? new URL(reference, base).href : undefined;

/** How the start answer named its status monitor. */
export type MonitorHeader = 'operation-location' | 'azure-asyncoperation' | 'location';

/** Where the start answer says to poll, and by which header; `undefined` when it names no monitor. */
export function monitorOf(answer: Pick<OperationAnswer, 'status' | 'headers' | 'url'>): { url: string; via: MonitorHeader } | undefined {
  for (const via of MONITOR_HEADERS) {
    const url = resolveUrl(answer.headers.get(via), answer.url);
    if (url) return { url, via };
  }
  const url = answer.status === 202 ? resolveUrl(answer.headers.get('location'), answer.url) : undefined;
  return url ? { url, via: 'location' } : undefined;
}

/** The final body's `resourceLocation` (Azure), when it has one (an empty one names nothing: {@link resolveUrl} makes no URL of it). */
export function resourceLocation(body: unknown): string | undefined {
  return isObject(body) && typeof body.resourceLocation === 'string' ? body.resourceLocation : undefined;
}

/** Google's `response` of a done operation, when the body has one. */
export function googleResponse(body: unknown): { value: unknown } | undefined {
  return isObject(body) && body.done === true && 'response' in body ? { value: body.response } : undefined;
}
