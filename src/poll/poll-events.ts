/**
 * What a poller reports through `onEvent`, so a UI or a log can show what it
 * is doing and when it will act next. Times are epoch ms, durations ms;
 * `attempt` numbers the tries since the last success from 1 (see the
 * counting table in the docs).
 */
export type PollEvent =
  /** A request is about to go out: attempt `attempt` since the last success. */
  | { type: 'request'; attempt: number; conditional: boolean }
  /** Any response arrived: 2xx, 304 and errors alike. `ms`: time since the request left. */
  | { type: 'response'; status: number; ms: number }
  /**
   * Attempt `attempt` failed; the next goes out at `at`. `failures`: counted
   * failures in a row (answers paced by a Retry-After of a second or more
   * are not counted). `retryAfter`: the server's wait that paced this one, or null.
   */
  | {
      type: 'retry';
      attempt: number;
      failures: number;
      delay: number;
      at: number;
      reason: 'network' | 'timeout' | 'status';
      status?: number;
      retryAfter: number | null;
    }
  /** The wait after a 2xx or 304. */
  | { type: 'wait'; delay: number; at: number }
  /** Polling paused: the page is hidden, the network is down, or (with `pauseWhenBlurred()`) the window lost focus. */
  | { type: 'pause'; reason: 'hidden' | 'offline' | 'blurred' }
  /** Polling resumed after a pause. */
  | { type: 'resume' }
  /** Another request to `origin` drew a 429/503 with Retry-After: this one waits until then (plus a spread). */
  | { type: 'cooldown'; delay: number; at: number; origin: string }
  /** A wait ended early: the page became visible, the network came back, the window got the focus, or a "try now" (`now`). */
  | { type: 'wake'; reason: 'visible' | 'online' | 'focus' | 'now' }
  /** A sharing feature: this caller now polls for all (`leader`) or receives another's updates (`follower`). */
  | { type: 'share'; role: 'leader' | 'follower' };
