// A Svelte module (`.svelte.ts`): its runes are compiled by the app's Svelte
// compiler, as every Svelte 5 library's are (vite-plugin-svelte, SvelteKit).
import { untrack } from 'svelte';
import { type Clock } from '../index.js';
import { urlKey } from '../kit/index.js';
import { createCountdown, type RunState, type ViewControls } from '../observe/index.js';

/** A url as Svelte code passes it: a value, or a getter (`() => url`) to follow its changes. */
export type UrlSource = string | URL | null | (() => string | URL | null);

/**
 * The view of the state `make(key)` makes for the current url, as an object
 * of getters over `$state` (read in markup, `$derived` or `$effect`, they
 * track): started by an `$effect` (so never on the server), replaced (the
 * old one stopped) when the url changes, stopped when the component is
 * destroyed. Call it during component initialisation, as any `$effect`.
 */
export function createView<TSnapshot extends object & { readonly nextAttemptAt: number | undefined }>(
  url: UrlSource,
  make: (key: string | null) => RunState<TSnapshot>,
  env: () => Partial<Clock> | undefined,
): TSnapshot & ViewControls {
  let key = untrack(() => urlKey(url));
  let state = untrack(() => make(key));
  let snapshot = $state.raw(state.getSnapshot());
  let secondsLeft = $state.raw<number | undefined>(undefined);
  $effect(() => {
    const next = urlKey(url);
    return untrack(() => {
      if (next !== key) {
        key = next;
        state = make(next);
      }
      const current = state;
      const countdown = createCountdown(current, env());
      const offs = [current.subscribe(() => (snapshot = current.getSnapshot())), countdown.subscribe(() => (secondsLeft = countdown.getSnapshot()))];
      snapshot = current.getSnapshot();
      secondsLeft = countdown.getSnapshot();
      current.start();
      return () => {
        current.stop();
        offs.forEach((off) => off());
      };
    });
  });
  const view = { retry: () => state.retry(), retryNow: () => state.retryNow(), stop: () => state.stop() } as TSnapshot & ViewControls;
  for (const field of Object.keys(state.getSnapshot())) {
    Object.defineProperty(view, field, { enumerable: true, get: () => snapshot[field as keyof TSnapshot] });
  }
  Object.defineProperty(view, 'secondsLeft', { enumerable: true, get: () => secondsLeft });
  return view;
}
