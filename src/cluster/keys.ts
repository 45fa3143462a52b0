/** SHA-256 of `text`, hex: what names a job or a route in Redis, so that no URL path or header value is stored. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

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
  return [`${base}:503`, `${base}:429:${await sha256(url.pathname)}`];
}

export const budgetKey = (prefix: string, name: string): string => `${prefix}budget:{${name}}`;

/** A random id: a lease token, a cooldown's. */
export const randomId = (): string =>
  typeof crypto?.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
