import { getCurrentInstance, onMounted, onScopeDispose, shallowReactive, toValue, watch, type MaybeRefOrGetter } from 'vue';
import { type Clock } from '../index.js';
import { urlKey } from '../kit/index.js';
import { createCountdown, type RunState, type ViewControls } from '../observe/index.js';

/** A url as a composable takes it: a value, a ref or a getter. */
export type UrlSource = MaybeRefOrGetter<string | URL | null>;

/**
 * A shallow-reactive view of the state `make(key)` makes for the current
 * url: started once mounted (or at once outside a component), replaced
 * (the old one stopped) when the url changes, stopped when the component
 * or effect scope ends. Nothing starts on the server.
 */
export function useView<TSnapshot extends object & { readonly nextAttemptAt: number | undefined }>(
  url: UrlSource,
  make: (key: string | null) => RunState<TSnapshot>,
  env: () => Partial<Clock> | undefined,
): TSnapshot & ViewControls {
  let state = make(urlKey(toValue(url)));
  let live = false;
  let disconnect = (): void => undefined;
  const view = shallowReactive({
    ...state.getSnapshot(),
    secondsLeft: undefined as number | undefined,
    retry: () => state.retry(),
    retryNow: () => state.retryNow(),
    stop: () => state.stop(),
  });
  const connect = (): void => {
    const current = state;
    const countdown = createCountdown(current, env());
    const show = (): void => void Object.assign(view, current.getSnapshot(), { secondsLeft: countdown.getSnapshot() });
    const offs = [current.subscribe(show), countdown.subscribe(show)];
    show();
    current.start();
    disconnect = () => {
      current.stop();
      offs.forEach((off) => off());
    };
  };
  watch(
    () => urlKey(toValue(url)),
    (key) => {
      disconnect();
      state = make(key);
      Object.assign(view, state.getSnapshot(), { secondsLeft: undefined });
      if (live) connect();
    },
  );
  const begin = (): void => {
    live = true;
    connect();
  };
  if (getCurrentInstance()) onMounted(begin);
  else begin();
  onScopeDispose(() => {
    live = false;
    disconnect();
  });
  return view as TSnapshot & ViewControls;
}
