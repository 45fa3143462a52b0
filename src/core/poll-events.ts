/**
 * What a poller reports through `onEvent`, so a UI or a log can show what it
 * is doing and when it will act next. Times are epoch ms, durations ms.
 */
export type PollEvent =
  /** A request is about to go out. `attempt`: consecutive failures so far. */
  | { type: 'request'; attempt: number; conditional: boolean }
  /** Any response arrived: 2xx, 304 and errors alike. `ms`: time since the request left. */
  | { type: 'response'; status: number; ms: number }
  /** A failure; the next request goes out at `at`. `retryAfter`: the parsed value used, or null. */
  | {
      type: 'retry';
      attempt: number;
      delay: number;
      at: number;
      reason: 'network' | 'timeout' | 'status';
      status?: number;
      retryAfter: number | null;
    }
  /** The interval wait after a 2xx or 304. */
  | { type: 'wait'; delay: number; at: number }
  /** Polling paused: the page is hidden, the network is down (`pauseWhenOffline`) or the window lost focus (`pauseWhenBlurred`). */
  | { type: 'pause'; reason: 'hidden' | 'offline' | 'blurred' }
  /** Polling resumed after a pause. */
  | { type: 'resume' }
  /** Another request to `origin` drew a 429/503 with Retry-After: this one waits until then (plus a spread). */
  | { type: 'cooldown'; delay: number; at: number; origin: string }
  /** An interval wait ended early: the page became visible, the network came back, or the window got the focus. */
  | { type: 'wake'; reason: 'visible' | 'online' | 'focus' }
  /** With `share: 'tabs'`: this tab now polls for all (`leader`) or receives another tab's updates (`follower`). */
  | { type: 'share'; role: 'leader' | 'follower' };
