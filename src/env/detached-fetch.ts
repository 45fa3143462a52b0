/** The detached wrapper of each fetch, made once: two polls with the same fetch get the same one. */
const wrappers = new WeakMap<typeof fetch, typeof fetch>();

/**
 * `impl`, called detached (browsers and workerd throw "Illegal invocation"
 * when fetch runs with an options object as `this`); the same function for
 * the same `impl`, so that a sharing feature can tell two polls' fetch apart
 * by their `settings.fetch`.
 */
export function detachedFetch(impl: typeof fetch): typeof fetch {
  let wrapper = wrappers.get(impl);
  if (!wrapper) wrappers.set(impl, (wrapper = (input, init) => impl(input, init)));
  return wrapper;
}
