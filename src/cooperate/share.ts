import type { PollCall, PollFeature, PollRunner } from '../index.js';
import { join, sharedLoop, type SharedLoop } from './shared-loop.js';
import { shareKey } from './share-key.js';

/** The realm's shared loops, by {@link shareKey}. Entries leave with their last caller. */
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

/**
 * Shares one request loop among the polls of this realm with the same
 * method, URL, headers and body (a string or URLSearchParams; a request
 * whose body is a stream, Blob or FormData polls on its own). Each caller
 * keeps its own `isDone`, `onUpdate`, `onEvent`, `signal` and `timeout`;
 * one caller's throwing callback settles that caller alone. The loop runs
 * with the options of the caller that started it and stops when its last
 * caller is done or aborted; a caller joining a running loop gets its
 * latest body at once. An error of the loop (a 404, giving up) rejects
 * every caller.
 *
 * @example
 * poll('/api/jobs/42', { use: [share()], isDone, onUpdate });
 */
export function share(): PollFeature {
  return {
    run(call, next) {
      const same = shareKey(call.request);
      if (same === undefined) return next(call);
      return joinOrStart(`realm ${same}`, call, (loop) => {
        runShared(call, next, loop).catch((error: unknown) => loop.fail(error));
      });
    },
  };
}
