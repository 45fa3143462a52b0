/**
 * Counts the listeners on every EventTarget of the process, not only those a
 * test hands to the code: the signals pollite makes inside a loop, a request's
 * deadline, the caller's signal, `document` and `window` under jsdom. While it
 * is installed, `addEventListener` and `removeEventListener` of each
 * EventTarget prototype (Node's, and jsdom's when there is a document) are
 * wrapped, so a test can ask what is still attached.
 *
 * A listener is live from its `addEventListener` until one of:
 * - `removeEventListener` with the same type, listener and capture;
 * - it fires, when added with `once`;
 * - it fires on its signal's `abort`, which happens once (a listener added to
 *   a signal that has already aborted never fires, so it stays live: a leak).
 *
 * Each listener is handed to the real method inside a wrapper (so that the
 * firing can be seen); removals are translated back, also for listeners added
 * before {@link ListenerTracker.forget}.
 *
 * Each listener also has an owner, from the frame that called
 * `addEventListener` (past Node's own event plumbing): `'fetch'` when that is
 * undici, Node's fetch (`node:internal/deps/undici`) or a copy in
 * node_modules; `'code'` for everything else, pollite and the test. undici
 * follows the signal a request is given with listeners it never removes
 * itself: a FinalizationRegistry drops them once the request is collected,
 * whenever the garbage collector gets to it. Tests over a real fetch assert
 * that no listener of the code's own is left, and that fetch's sit on no
 * signal of the caller's.
 */

/** Who added a listener: undici (a real `fetch`), or anyone else. */
export type ListenerOwner = 'code' | 'fetch';

export interface ListenerTracker {
  /**
   * The listeners added since the last {@link forget} (or the install) that are still attached, on
   * `target` alone when given, by `owner` alone when given, each as
   * `'abort' on AbortSignal, added at <stack>` (`added by fetch at` for undici's, with the frame that called fetch).
   */
  live(target?: EventTarget, owner?: ListenerOwner): string[];
  /**
   * How many listeners were added since the last {@link forget}, by `owner` alone when given: a
   * count of 0 where the code must listen means a vacuous test.
   */
  added(owner?: ListenerOwner): number;
  /** Every event type listened to since the install. */
  readonly types: ReadonlySet<string>;
  /** Starts a new count: what is live now is no longer reported. */
  forget(): void;
  /** Puts the real methods back. */
  uninstall(): void;
}

interface Entry {
  target: EventTarget;
  type: string;
  capture: boolean;
  listener: EventListenerOrEventListenerObject;
  wrapper: (this: unknown, event: Event) => unknown;
  addedAt: string;
  owner: ListenerOwner;
}

let installed: ListenerTracker | undefined;

const captureOf = (options: boolean | EventListenerOptions | undefined): boolean => (typeof options === 'boolean' ? options : Boolean(options?.capture));
const onceOf = (options: boolean | AddEventListenerOptions | undefined): boolean => typeof options === 'object' && options !== null && Boolean(options.once);
const isSignal = (target: unknown): target is AbortSignal => typeof AbortSignal === 'function' && target instanceof AbortSignal;

function describeTarget(target: EventTarget): string {
  const name = (target as { constructor?: { name?: string } }).constructor?.name ?? 'EventTarget';
  return isSignal(target) && target.aborted ? `${name} (aborted)` : name;
}

/** Frames of this file and of Node's generic event plumbing, which adds listeners on behalf of its caller. */
const PLUMBING = /event-listeners\.ts|\(node:events|\(node:internal\/(event_target|abort_controller|events)/;
/** undici, as Node bundles it or from node_modules. */
const UNDICI = /node:internal\/deps\/undici|node_modules[\\/]undici[\\/]/;

/**
 * Who is adding a listener and from where: the owner from the first frame past this file and
 * Node's event plumbing; the place from the stack without this file's, vitest's and Node's frames.
 */
function caller(): { owner: ListenerOwner; at: string } {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack.split('\n').slice(1);
  const first = frames.find((frame) => !PLUMBING.test(frame)) ?? '';
  const at = frames
    .filter((frame) => !/node_modules|node:internal|event-listeners\.ts/.test(frame))
    .slice(0, 4)
    .map((frame) => frame.trim())
    .join(' < ');
  return { owner: UNDICI.test(first) ? 'fetch' : 'code', at };
}

/** The prototypes that own `addEventListener` for the EventTargets around: Node's, and jsdom's under a document. */
function owners(): object[] {
  const starts: unknown[] = [
    typeof EventTarget === 'function' ? EventTarget.prototype : undefined,
    typeof AbortSignal === 'function' ? AbortSignal.prototype : undefined,
    (globalThis as { document?: unknown }).document,
    (globalThis as { window?: unknown }).window,
  ];
  const found = new Set<object>();
  for (const start of starts) {
    for (let proto = start; proto && typeof proto === 'object'; proto = Object.getPrototypeOf(proto)) {
      if (Object.prototype.hasOwnProperty.call(proto, 'addEventListener') && Object.prototype.hasOwnProperty.call(proto, 'removeEventListener')) {
        found.add(proto);
        break;
      }
    }
  }
  return [...found];
}

/**
 * Installs the wrappers (once per test file: `const listeners = trackListeners(); afterAll(() => listeners.uninstall())`).
 * Throws if a tracker is installed already.
 */
export function trackListeners(): ListenerTracker {
  if (installed) throw new Error('trackListeners(): already installed; uninstall the other one first');
  /** Every wrapped listener still registered, by target (kept across `forget` to translate removals). */
  const registered = new WeakMap<EventTarget, Entry[]>();
  /** The live ones of the current count. */
  let counted = new Set<Entry>();
  const added = { code: 0, fetch: 0 };
  const types = new Set<string>();
  const restore: Array<() => void> = [];

  const find = (target: EventTarget, type: string, capture: boolean, listener: unknown): Entry | undefined =>
    registered.get(target)?.find((entry) => entry.type === type && entry.capture === capture && (entry.listener === listener || entry.wrapper === listener));
  const drop = (entry: Entry): void => {
    counted.delete(entry);
    const list = registered.get(entry.target);
    const at = list?.indexOf(entry) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
  };

  for (const proto of owners()) {
    const target = proto as EventTarget;
    const add = target.addEventListener;
    const remove = target.removeEventListener;
    const track = (owner: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void => {
      if (listener === null || listener === undefined || (typeof listener !== 'function' && typeof listener !== 'object')) return add.call(owner, type, listener, options);
      const capture = captureOf(options);
      const existing = find(owner, type, capture, listener);
      // The same listener twice is one listener, as EventTarget has it.
      if (existing) return add.call(owner, type, existing.wrapper, options);
      // With an already aborted `signal` option nothing is added.
      if (typeof options === 'object' && options?.signal?.aborted) return add.call(owner, type, listener, options);
      const once = onceOf(options);
      const by = caller();
      const entry: Entry = {
        target: owner,
        type,
        capture,
        listener,
        addedAt: by.at,
        owner: by.owner,
        wrapper(this: unknown, event: Event) {
          if (once || (isSignal(owner) && event.type === 'abort')) drop(entry);
          return typeof listener === 'function' ? listener.call(this, event) : listener.handleEvent(event);
        },
      };
      const list = registered.get(owner) ?? [];
      list.push(entry);
      registered.set(owner, list);
      counted.add(entry);
      added[entry.owner] += 1;
      types.add(type);
      return add.call(owner, type, entry.wrapper, options);
    };
    target.addEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
      return track(this, type, listener, options);
    } as EventTarget['addEventListener'];
    target.removeEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
      const entry = listener ? find(this, type, captureOf(options), listener) : undefined;
      if (!entry) return remove.call(this, type, listener, options);
      drop(entry);
      return remove.call(this, type, entry.wrapper, options);
    } as EventTarget['removeEventListener'];
    restore.push(() => {
      target.addEventListener = add;
      target.removeEventListener = remove;
    });
  }

  const tracker: ListenerTracker = {
    live: (target, owner) =>
      [...counted]
        .filter((entry) => (target === undefined || entry.target === target) && (owner === undefined || entry.owner === owner))
        .map((entry) => `'${entry.type}' on ${describeTarget(entry.target)}, added ${entry.owner === 'fetch' ? 'by fetch ' : ''}at ${entry.addedAt}`),
    added: (owner) => (owner === undefined ? added.code + added.fetch : added[owner]),
    types,
    forget: () => {
      counted = new Set();
      added.code = 0;
      added.fetch = 0;
    },
    uninstall: () => {
      for (const undo of restore.splice(0)) undo();
      if (installed === tracker) installed = undefined;
    },
  };
  installed = tracker;
  return tracker;
}
