// The real-time hops a VirtualClock takes between virtual instants. No Node
// built-in is imported: setImmediate is used where the runtime has it, else a
// MessageChannel message, else setTimeout(0), so the clock runs in browsers too.

/**
 * Calls a callback once every promise continuation queued so far has run to
 * completion, for the simulator's fast path: a macrotask only comes after
 * the microtask queue is empty, however long its chains. setImmediate where
 * the runtime has it (it allocates a small handle; a MessageChannel message
 * builds a MessageEvent, about a kilobyte, which made a third of a
 * 100,000-client run's garbage), else a MessageChannel message, else
 * setTimeout(0). No promise per hop: a fleet takes hundreds of thousands.
 */
export function microtaskDrainer(): { hop: (callback: () => void) => void; close: () => void } {
  // Where macrotask() needs no MessageChannel, it is the hop; else one channel serves every hop.
  if (typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function' || typeof MessageChannel !== 'function') {
    return { hop: macrotask, close: () => undefined };
  }
  const channel = new MessageChannel();
  let next: () => void = () => undefined;
  channel.port1.onmessage = () => next();
  return {
    hop: (callback) => {
      next = callback;
      channel.port2.postMessage(null);
    },
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
