/** The current run of a state: at most one at a time. */
export interface OneRun {
  /** Whether a run is under way. */
  running(): boolean;
  /**
   * Starts a run (ending any current one first) a microtask from now:
   * `body` gets the run's signal and `live()`, true until the run ends. A
   * run ended in the same task never starts, so React's `<StrictMode>`
   * (mount, unmount, mount at once) sends one request, not two.
   */
  begin(body: (signal: AbortSignal, live: () => boolean) => void): void;
  /** Ends the current run: its signal aborts and its `live()` turns false, so nothing it learns later is shown. */
  end(): void;
}

/** One run at a time, for the poll and fetch states. */
export function oneRun(): OneRun {
  let current: AbortController | undefined;
  const end = (): void => {
    current?.abort(new DOMException('Stopped', 'AbortError'));
    current = undefined;
  };
  return {
    running: () => current !== undefined,
    begin(body) {
      end();
      const controller = new AbortController();
      current = controller;
      const live = (): boolean => current === controller;
      queueMicrotask(() => {
        if (live()) body(controller.signal, live);
      });
    },
    end,
  };
}

/** `retries + 1` when `retries` is a valid count, else `fallback + 1` (the option's default; the call then rejects with a TypeError naming it). */
export const limitOf = (retries: unknown, fallback: number): number =>
  (Number.isInteger(retries) && (retries as number) >= 0 ? (retries as number) : fallback) + 1;

/** Options given as they are, or as a function read each time they are needed (a Vue getter, React's latest render). */
export type OptionsSource<TOptions> = TOptions | (() => TOptions | undefined);

/** The reader of an {@link OptionsSource}. */
export const reader =
  <TOptions extends object>(source: OptionsSource<TOptions> | undefined): (() => TOptions) =>
  () =>
    (typeof source === 'function' ? source() : source) ?? ({} as TOptions);
