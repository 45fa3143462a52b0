import type { NormalizedPollOptions } from '../core/normalize-poll-options.js';
import type { PollEvent } from '../core/poll-events.js';
import { pollLoop } from '../core/poll-loop.js';
import { requestFactory } from '../core/request.js';
import { startTimer } from '../env/timer.js';
import { timeoutError } from '../errors/timeout-error.js';
import { shareKey } from './share-key.js';
import { shareAcrossTabs, tabApis } from './tab-leader.js';

/** One caller of a shared loop: its own callbacks, signal and deadline. */
interface Caller {
  o: NormalizedPollOptions<unknown>;
  settle(outcome: { data: unknown } | { error: unknown }): void;
}

/** A request loop that several callers share. */
interface SharedLoop {
  callers: Set<Caller>;
  /** The latest body, handed at once to callers that join later. */
  last?: { data: unknown };
  /** Aborts when the last caller has left. */
  stop: AbortController;
}

/** The realm's shared loops, by mode and {@link shareKey}. Entries leave with their last caller. */
const loops = new Map<string, SharedLoop>();

const deliver = (loop: SharedLoop, data: unknown, to: Iterable<Caller> = [...loop.callers]): void => {
  loop.last = { data };
  for (const caller of to) {
    try {
      caller.o.onUpdate?.(data);
      if (caller.o.isDone(data)) caller.settle({ data });
    } catch (error) {
      caller.settle({ error });
    }
  }
};

const fail = (loop: SharedLoop, error: unknown): void => {
  for (const caller of [...loop.callers]) caller.settle({ error });
};

const emit = (loop: SharedLoop) => (event: PollEvent): void => {
  for (const caller of loop.callers) caller.o.onEvent?.(event);
};

function join<T>(loop: SharedLoop, o: NormalizedPollOptions<T>, onEmpty: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const { signal } = o;
    const onAbort = (): void => caller.settle({ error: signal?.reason });
    const stopTimer =
      o.timeout === undefined
        ? () => undefined
        : startTimer(o.env, o.timeout, () => caller.settle({ error: timeoutError(`Polling timed out after ${o.timeout} ms`) }));
    const caller: Caller = {
      o: o as NormalizedPollOptions<unknown>,
      settle(outcome) {
        if (!loop.callers.delete(caller)) return;
        stopTimer();
        signal?.removeEventListener('abort', onAbort);
        if ('data' in outcome) resolve(outcome.data as T);
        else reject(outcome.error);
        if (loop.callers.size === 0) onEmpty();
      },
    };
    loop.callers.add(caller);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (loop.last) deliver(loop, loop.last.data, [caller]);
  });
}

/**
 * `poll` with `share`: joins the realm's loop for the same method, URL,
 * headers and body, or starts one with this caller's options (`share:
 * 'tabs'` coordinates it with the other tabs where Web Locks and
 * BroadcastChannel exist). Settles like `poll`, for this caller alone.
 * `undefined` when the request cannot be shared (its body cannot be
 * compared): the caller then polls on its own.
 */
export function sharedPoll<T>(input: string | URL | Request, o: NormalizedPollOptions<T>): Promise<T> | undefined {
  const request = requestFactory(input, o.init);
  const same = shareKey(request);
  if (same === undefined) return undefined;
  const apis = o.share === 'tabs' ? tabApis() : undefined;
  const key = `${apis ? 'tabs' : 'realm'} ${same}`;
  const running = loops.get(key);
  const loop: SharedLoop = running ?? { callers: new Set(), stop: new AbortController() };
  const onEmpty = (): void => {
    if (loops.get(key) === loop) loops.delete(key);
    loop.stop.abort();
  };
  const joined = join(loop, o, onEmpty);
  if (running) return joined;
  loops.set(key, loop);
  let sentAt = 0;
  /** Tells the other tabs when this leader's next request is due. */
  let announce: ((at: number) => void) | undefined;
  const loopOptions = (onUpdate: (data: unknown) => void): NormalizedPollOptions<unknown> => ({
    ...(o as NormalizedPollOptions<unknown>),
    isDone: () => loop.callers.size === 0,
    onUpdate,
    onEvent: (event) => {
      if (event.type === 'request') sentAt = o.env.now();
      if (event.type === 'wait' || event.type === 'retry' || event.type === 'cooldown') announce?.(event.at);
      emit(loop)(event);
    },
    signal: undefined,
    timeout: undefined,
  });
  const stop = loop.stop.signal;
  const fails = (error: unknown): void => {
    if (!stop.aborted) fail(loop, error);
  };
  if (apis) {
    shareAcrossTabs(
      {
        name: key,
        env: o.env,
        pauseWhenHidden: o.pauseWhenHidden,
        interval: o.interval,
        stop,
        lead: (signal, publish, schedule) => {
          announce = schedule;
          return pollLoop(request, loopOptions((data) => publish(data, sentAt)), signal, Infinity).finally(() => (announce = undefined));
        },
        onTakeover: (delay) => emit(loop)({ type: 'wait', delay, at: o.env.now() + delay }),
        deliver: (data) => deliver(loop, data),
        fail: fails,
        onRole: (role) => emit(loop)({ type: 'share', role }),
      },
      apis,
    );
  } else {
    pollLoop(request, loopOptions((data) => deliver(loop, data)), stop, Infinity).catch(fails);
  }
  return joined;
}
