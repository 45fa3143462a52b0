import { onAbort } from '../env/on-abort.js';

/** Statuses whose Response cannot carry a body of its own making. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `response` with its body followed: `release` runs once the body has been
 * read to the end, cancelled or has failed, and an abort of `signal`
 * while it is read fails the read with the signal's reason, as with plain
 * `fetch`. So a call's signal and deadlines keep their word past the
 * headers. The same status, headers, `url`, `redirected` and `type`.
 */
export function followBody(response: Response, signal: AbortSignal | undefined, release: () => void): Response {
  const { body, status } = response;
  if (!body || NULL_BODY.has(status) || status < 200) {
    release();
    return response;
  }
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    stopListening?.();
    release();
  };
  const reader = body.getReader();
  let stopListening: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      stopListening =
        signal &&
        onAbort(signal, () => {
          controller.error(signal.reason);
          reader.cancel(signal.reason).catch(() => undefined);
          finish();
        });
    },
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (done) return;
        if (chunk.done) {
          finish();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        if (done) return;
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  const followed = new Response(stream, { status, statusText: response.statusText, headers: response.headers });
  for (const name of ['url', 'redirected', 'type'] as const) Object.defineProperty(followed, name, { value: response[name] });
  return followed;
}
