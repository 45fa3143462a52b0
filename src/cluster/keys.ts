import { sha256Hex } from '../kit/index.js';

// A job and a route are named in Redis by a SHA-256 (sha256Hex), so that no URL path or header value is stored.

/** The keys and the channel of one job, all in one hash slot (`{hash}`), so a Redis Cluster keeps them on one node. */
export interface JobKeys {
  lease: string;
  last: string;
  next: string;
  channel: string;
}

export const jobKeys = (prefix: string, hash: string): JobKeys => {
  const base = `${prefix}job:{${hash}}`;
  return { lease: `${base}:lease`, last: `${base}:last`, next: `${base}:next`, channel: base };
};

/** The cooldown keys of a URL: its origin's (503) and its route's (429, the path hashed); one slot per origin. */
export async function cooldownKeys(prefix: string, url: URL): Promise<[origin: string, route: string]> {
  const base = `${prefix}cool:{${url.origin}}`;
  return [`${base}:503`, `${base}:429:${await sha256Hex(url.pathname)}`];
}

export const budgetKey = (prefix: string, name: string): string => `${prefix}budget:{${name}}`;

/** A random id: a lease token, a cooldown's. */
export const randomId = (): string =>
  typeof crypto?.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** The sorted set of the processes that used a budget lately: in the bucket's slot. */
export const budgetLiveKey = (prefix: string, name: string): string => `${budgetKey(prefix, name)}:live`;
