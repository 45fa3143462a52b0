import type { RequestFactory } from '../http/request.js';
import { appliesWait, withPreferences } from './prefer.js';

/** The start request as `preferWait` sends it, and what tells how long the server held it. */
export interface PreferredStart {
  /** The start's init, its headers with `Prefer: respond-async, wait=N` (a Request input's headers included: init's replace them). */
  init: RequestInit;
  /** The start's fetch, noting when each attempt leaves. */
  fetch: typeof fetch;
  /**
   * The wait before the first poll when the start answer names none
   * (`interval`): shortened by the time the server held the start's last
   * attempt when it says it applied the wait, as after a held poll.
   */
  firstWait(answer: Response, interval: number, now: number): number;
}

/**
 * The start of an operation with `preferWait` (`ms`): `Prefer:
 * respond-async, wait=N` asks the server to answer with the result if it
 * has it within N s, else with its 202 (RFC 7240).
 */
export function preferredStart(init: RequestInit, start: RequestFactory, ms: number, given: typeof fetch | undefined, now: () => number): PreferredStart {
  let sentAt = 0;
  const prefer = withPreferences(start.headers.prefer, ['respond-async', `wait=${ms / 1000}`]);
  return {
    init: { ...init, headers: { ...start.headers, prefer } },
    fetch: (input, sent) => {
      sentAt = now();
      return (given ?? globalThis.fetch)(input, sent);
    },
    firstWait: (answer, interval, at) => (appliesWait(answer.headers) ? Math.max(0, interval - (at - sentAt)) : interval),
  };
}
