import type { PollCall, PollFeature, PollRunner } from '../index.js';
import { join, sharedLoop, type SharedLoop } from './shared-loop.js';
import { checkShareKey, shareIdentity, type ShareOptions } from './share-identity.js';

/** The realm's shared loops, by {@link shareIdentity}'s key. Entries leave with their last caller. */
const loops = new Map<string, SharedLoop>();

/**
 * Joins the realm's loop for `call`'s request under `key`, or starts one
 * with `start`, which runs the loop (with this caller's options) and
 * reports to the loop's sink until the loop's `stop` aborts.
 */
export function joinOrStart<T>(key: string, call: PollCall<T>, start: (loop: SharedLoop) => void): Promise<T> {
  const running = loops.get(key);
  if (running) return join(running, call);
  const loop = sharedLoop(() => {
    if (loops.get(key) === loop) loops.delete(key);
  });
  loops.set(key, loop);
  const joined = join(loop, call);
  start(loop);
  return joined;
}

/**
 * Runs `call`'s loop for a shared loop: its sink, its stop, no caller's
 * signal or deadline. In a promise, so a feature after this one whose `run`
 * throws at once rejects it (failing every caller) instead of leaving a loop
 * that never runs under its key.
 */
export const runShared = <T>(call: PollCall<T>, next: PollRunner, loop: SharedLoop, signal = loop.stop.signal): Promise<unknown> =>
  new Promise((run) => run(next({ ...call, sink: loop.sink, signal, timeout: undefined })));

/** Shares `call`'s loop within this realm under `key`: joins it, or starts it with this caller's options. */
export const shareInRealm = <T>(key: string, call: PollCall<T>, next: PollRunner): Promise<T> =>
  joinOrStart(`realm ${key}`, call, (loop) => {
    runShared(call, next, loop).catch((error: unknown) => loop.fail(error));
  });

/**
 * Shares one request loop among the polls of this realm that would get the
 * same answer: the same method, URL, headers and body (a string or
 * URLSearchParams; a request whose body is a stream, Blob or FormData polls
 * on its own), the same `credentials`, `mode`, `cache`, `redirect` and
 * `integrity`, and the same `fetch`, `parse`, objects in `init` (Node's
 * `dispatcher`) and features after this one that run the loop, compared by
 * identity (two `fetch` wrappers that add different users' tokens are two
 * loops) unless `key` says they are the same (see {@link ShareOptions}).
 * Each caller keeps its own `isDone`, `onUpdate`, `onEvent`, `signal` and
 * `timeout`; one caller's throwing callback settles that caller alone. The
 * loop runs with the options of the caller that started it and stops when
 * its last caller is done or aborted; a caller joining a running loop gets
 * its latest body at once. An error of the loop (a 404, giving up) rejects
 * every caller.
 *
 * @example
 * poll('/api/jobs/42', { use: [share()], isDone, onUpdate });
 */
export function share(options?: ShareOptions): PollFeature {
  const key = checkShareKey(options);
  const feature: PollFeature = {
    run(call, next) {
      const same = shareIdentity(call, { key, feature });
      return same ? shareInRealm(same.key, call, next) : next(call);
    },
  };
  return feature;
}
