import { realClock } from '../env/clock.js';
import { startTimer } from '../env/timer.js';
import { readText } from './body.js';
import type { HeaderReader } from './parse-retry-after.js';

/** The most of a 429's or 503's body read for a retry hint: error bodies are small, and a hostile one must not cost more. */
export const MAX_HINT_BYTES = 64 * 1024;
/** The longest a retry hint is read for, ms: a struggling server that trickles its error body must not hold the retry. */
export const MAX_HINT_MS = 1000;

/**
 * The wait the text of a JSON error body asks for, ms, or `null`: the
 * `retryDelay` of a `google.rpc.RetryInfo` (`"retryDelay": "30s"`, in
 * `error.details` of Google APIs, in a Connect error's `debug`), else a
 * `retry_after` in seconds (`error.retry_after`, or at the top: Discord-style
 * rate limits and several REST APIs), a number or digits in a string. The
 * first of each counts, wherever it stands: the text is scanned, not
 * parsed, so this costs a few bytes and linear time. Total: any text gives
 * a wait >= 0 (perhaps `Infinity`, capped by the caller) or `null`, and
 * never throws.
 *
 * @example
 * bodyWait('{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}'); // 30000
 * bodyWait('{"message":"slow down","retry_after":1.5}'); // 1500
 */
export function bodyWait(text: string): number | null {
  const hint = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text) ?? /"retry_after"\s*:\s*"?(\d+(?:\.\d+)?)["\s,}]/.exec(text);
  return hint ? Number(hint[1]) * 1000 : null;
}

/**
 * The wait the body of a failed answer asks for ({@link bodyWait}), read
 * only where it is cheap: a 429 or 503 whose `Content-Type` says JSON, at
 * most {@link MAX_HINT_BYTES} of it once decoded, for at most
 * {@link MAX_HINT_MS} of real time (a bound on I/O, not a schedule: a
 * virtual clock does not move it; what came by then is read), from a clone
 * (the answer itself stays unread for whoever gets it). The read is also
 * under the attempt's own signal and deadlines, as any body is; a body too
 * large or cut off is `null`, never a throw.
 */
export async function readBodyWait(response: Response, status: number, headers: HeaderReader): Promise<number | null> {
  if ((status !== 429 && status !== 503) || !headers.get('content-type')?.includes('json')) return null;
  const late = new AbortController();
  const stop = startTimer(realClock, MAX_HINT_MS, () => late.abort());
  try {
    return bodyWait(await readText(response.clone(), MAX_HINT_BYTES, late.signal));
  } catch {
    return null;
  } finally {
    stop();
  }
}
