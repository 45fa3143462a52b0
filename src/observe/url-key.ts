/**
 * The key a url's state is made and compared under: the url as a string
 * (a `URL` and its `href` are one key), or `null` for no url (nothing to
 * poll or fetch). A function is called for the current url, so an adapter
 * that follows a getter or a signal reads it here, inside its own tracking
 * scope. `createPollState`, `createFetchState` and the React, Vue, Svelte
 * and Solid adapters key their state with it: a new key is a new state.
 *
 * @example
 * urlKey(new URL('https://api.example.com/jobs/42')); // 'https://api.example.com/jobs/42'
 * urlKey(() => (id ? `/api/jobs/${id}` : null));       // the current url's key, or null
 */
export function urlKey(url: string | URL | null | (() => string | URL | null)): string | null {
  const value = typeof url === 'function' ? url() : url;
  return value === null ? null : String(value);
}
