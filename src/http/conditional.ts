import type { Condition } from './request.js';

/** What the realm says of itself: a page or a worker has a `location`, Node names its fetch (undici). */
interface Realm {
  location?: unknown;
  process?: { versions?: { undici?: string } };
}

/**
 * A poll's {@link Condition}: If-None-Match with the ETag, else
 * If-Modified-Since with the Last-Modified, so that unchanged data costs an
 * empty 304, and a request that Express and Koa answer with one.
 *
 * Node's fetch (undici) turns a conditional request into `Cache-Control:
 * no-cache` (fetch's rule for the default cache mode), and the `fresh`
 * module of Express and Koa then never answers 304. Asked for `cache:
 * 'no-cache'`, it says `max-age=0` instead, which keeps the request
 * conditional and fresh (and costs less than a header of ours, which it
 * would convert and check). That replaces a cache mode of the caller's on a
 * conditional request: undici has no HTTP cache, so a mode only chooses
 * these headers (no-store and reload add Pragma and no-cache), and a
 * Cache-Control of the caller's stands in every mode. Any other fetch
 * without a `location` (Deno, Bun, workerd, which refuses a cache mode, an
 * edge runtime built on undici without saying so) gets the header from us.
 * A realm with a `location` (a page, a worker, an Electron renderer, jsdom)
 * gets nothing: a browser keeps its own HTTP cache, and CORS would have to
 * allow the header.
 */
export const conditional: Condition = ({ etag, lastModified }, headers, init) => {
  const realm = globalThis as Realm;
  if (etag) headers['if-none-match'] = etag;
  else if (lastModified) headers['if-modified-since'] = lastModified;
  else return;
  if (realm.location) return;
  if (realm.process?.versions?.undici) init.cache = 'no-cache';
  else headers['cache-control'] ??= 'max-age=0';
};
