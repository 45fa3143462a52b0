// The real-time hops a VirtualClock takes between virtual instants. No Node
// built-in is imported: setImmediate is used where the runtime has it, else a
// MessageChannel message, else setTimeout(0), so the clock runs in browsers too.

/**
 * Lets every promise continuation queued so far run to completion, for the
 * simulator's fast path: a macrotask only comes after the microtask queue is
 * empty, however long its chains. A MessageChannel message is the cheapest
 * macrotask in Node (about 1 us against 3 us for setImmediate); setTimeout(0)
 * is the fallback.
 */
export function microtaskDrainer(): { drain: () => Promise<void>; close: () => void } {
  if (typeof MessageChannel !== 'function') {
    return { drain: () => new Promise((resolve) => setTimeout(resolve, 0)), close: () => undefined };
  }
  const channel = new MessageChannel();
  let wake: () => void = () => undefined;
  channel.port1.onmessage = () => wake();
  return {
    drain: () =>
      new Promise((resolve) => {
        wake = resolve;
        channel.port2.postMessage(null);
      }),
    close: () => channel.port1.close(),
  };
}

/**
 * Calls `callback` in a macrotask of its own: after every pending promise
 * continuation, and (with setImmediate) after the I/O that is ready, so a
 * real server's answer or a BroadcastChannel message gets its turn.
 */
export function macrotask(callback: () => void): void {
  const { setImmediate: immediate } = globalThis as { setImmediate?: (callback: () => void) => unknown };
  if (typeof immediate === 'function') {
    immediate(callback);
  } else if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      callback();
    };
    channel.port2.postMessage(null);
  } else {
    setTimeout(callback, 0);
  }
}

/** {@link macrotask} as a promise. */
export const nextMacrotask = (): Promise<void> => new Promise((resolve) => macrotask(resolve));
