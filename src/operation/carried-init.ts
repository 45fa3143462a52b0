// What the start request hands on to the requests that follow it (the polls of the monitor, the
// result's GET), and where its credentials may go, as pure functions.

import { isNetworkUrl } from '../http/url-scheme.js';

/** Fields of the start's init that are its body's, its write's, or set per request by pollite: never carried. */
const START_ONLY_FIELDS = new Set(['method', 'body', 'headers', 'signal', 'integrity', 'duplex', 'window']);

/** Headers of the start that belong to its body or its write. */
const START_ONLY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'idempotency-key']);

/**
 * The only headers sent to an origin the caller did not name: the
 * CORS-safelisted request headers less `Content-Type` (the body's), and
 * `User-Agent`. None can carry a credential; any other header might (an
 * `api-key`, an `Ocp-Apim-Subscription-Key`, an `x-api-key`), and pollite
 * cannot tell which.
 */
export const SAFE_HEADERS: ReadonlySet<string> = new Set(['accept', 'accept-language', 'content-language', 'user-agent']);

/** The fields of a `Request` input that are carried, as the init's are (the init's own override them, as with fetch). */
const REQUEST_FIELDS = ['cache', 'credentials', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy'] as const;

/** What the start hands on, before the rule of {@link initFor} is applied for each URL. */
export interface Carried {
  /** The headers: `operation.headers`, else the start's less those of its body and its write. */
  headers: Readonly<Record<string, string>>;
  /** Every other field of the start's init (credentials, mode, cache, redirect, keepalive, Node's `dispatcher`...). */
  fields: Readonly<RequestInit>;
  /** The origins that may receive all of it: the start URL's, and `trustedOrigins`. */
  trusted: ReadonlySet<string>;
}

/** What {@link carriedFrom} reads of the start. */
export interface StartParts {
  /** The start URL, absolute: its origin is the one the caller named. */
  url: string;
  /** The start's headers, names lower-cased (a Request input's and init's). */
  headers: Readonly<Record<string, string>>;
  /** The start's init, less `operation`. */
  init: RequestInit;
  /** The start's input read as a `Request`: a string or a URL has none of its fields. */
  request: Partial<Request>;
}

/**
 * What the start hands on: its headers less those of its body and its
 * write (or `given`, the caller's `operation.headers`, in their place), every
 * field of its init (and of a `Request` input) but its method, body,
 * signal and integrity, and the origins trusted with all of it.
 */
export function carriedFrom(start: StartParts, given: HeadersInit | undefined, trustedOrigins: readonly string[] = []): Carried {
  const headers: Record<string, string> = {};
  if (given) new Headers(given).forEach((value, name) => (headers[name] = value));
  else for (const [name, value] of Object.entries(start.headers)) if (!START_ONLY_HEADERS.has(name)) headers[name] = value;
  const fields: Record<string, unknown> = {};
  // A navigation's mode cannot be asked for in an init.
  for (const name of REQUEST_FIELDS) if (start.request[name] !== undefined && start.request[name] !== 'navigate') fields[name] = start.request[name];
  for (const [name, value] of Object.entries(start.init)) if (!START_ONLY_FIELDS.has(name) && value !== undefined) fields[name] = value;
  return { headers, fields: fields as RequestInit, trusted: new Set([new URL(start.url).origin, ...trustedOrigins]) };
}

/**
 * The init of a request to `url` (a monitor, a result: a URL a server
 * named), by the rule that credentials never go to an origin the caller
 * did not name. To the start URL's origin or a trusted one, everything
 * carried. To any other: only the {@link SAFE_HEADERS} (no
 * `Authorization`, `Cookie`, `Proxy-Authorization` nor any custom header),
 * and `credentials: 'include'` made `'same-origin'` (a browser sends that
 * origin no cookies); every other field as carried. Stricter than fetch's
 * own rule for a cross-origin redirect, which drops `Authorization` only.
 */
export function initFor(url: string, carried: Carried): RequestInit {
  if (carried.trusted.has(new URL(url).origin)) return { ...carried.fields, headers: { ...carried.headers } };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(carried.headers)) if (SAFE_HEADERS.has(name)) headers[name] = value;
  const { fields } = carried;
  return { ...fields, headers, ...(fields.credentials === 'include' && { credentials: 'same-origin' }) };
}

/** Whether `value` is an http or https origin, written as `new URL(...).origin` writes it: `https://ops.example.com`. */
export const isOrigin = (value: unknown): boolean => typeof value === 'string' && URL.canParse(value) && isNetworkUrl(new URL(value)) && new URL(value).origin === value;
