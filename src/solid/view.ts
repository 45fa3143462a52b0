import { createEffect, createSignal, on, onCleanup, untrack, type Accessor } from 'solid-js';
import { type Clock } from '../index.js';
import { urlKey } from '../kit/index.js';
import { createCountdown, type RunState, type ViewControls } from '../observe/index.js';

/** A url as a primitive takes it: a value or an accessor (a signal, a prop getter). */
export type UrlSource = string | URL | null | Accessor<string | URL | null>;

/**
 * The view of the state `make(key)` makes for the current url, as an
 * object of getters over signals (read in JSX or an effect, they track):
 * started by an effect (so never on the server), replaced (the old one
 * stopped) when the url changes, stopped when the owner is disposed.
 */
export function createView<TSnapshot extends object & { readonly nextAttemptAt: number | undefined }>(
  url: UrlSource,
  make: (key: string | null) => RunState<TSnapshot>,
  env: () => Partial<Clock> | undefined,
): TSnapshot & ViewControls {
  let state = untrack(() => make(urlKey(url)));
  let made = true;
  const [snapshot, setSnapshot] = createSignal(state.getSnapshot());
  const [secondsLeft, setSecondsLeft] = createSignal<number | undefined>(undefined);
  createEffect(
    on(
      () => urlKey(url),
      (key) => {
        if (!made) state = make(key);
        made = false;
        const current = state;
        const countdown = createCountdown(current, env());
        const offs = [current.subscribe(() => setSnapshot(() => current.getSnapshot())), countdown.subscribe(() => setSecondsLeft(countdown.getSnapshot()))];
        setSnapshot(() => current.getSnapshot());
        setSecondsLeft(countdown.getSnapshot());
        current.start();
        onCleanup(() => {
          current.stop();
          offs.forEach((off) => off());
        });
      },
    ),
  );
  const view = { retry: () => state.retry(), retryNow: () => state.retryNow(), stop: () => state.stop() } as TSnapshot & ViewControls;
  for (const field of Object.keys(state.getSnapshot())) {
    Object.defineProperty(view, field, { enumerable: true, get: () => snapshot()[field as keyof TSnapshot] });
  }
  Object.defineProperty(view, 'secondsLeft', { enumerable: true, get: secondsLeft });
  return view;
}
