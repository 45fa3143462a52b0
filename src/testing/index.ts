// The public API of `pollite/testing`: the one virtual clock behind pollite's
// own tests and its simulator, for testing your code that uses pollite.

export { VirtualClock } from './virtual-clock.js';
export type { VirtualClockOptions, VirtualEnvironment, TimerSet } from './virtual-clock-options.js';
export type { VirtualTimer } from './event-queue.js';
