import type { NodeResponseLike } from './node-handler-options.js';

/**
 * Writes `response` to `res`, streaming its body with back-pressure. When
 * `signal` aborts (the client went away) it stops: the body's stream is
 * cancelled, so its producer stops too, and the wait for a `drain` that
 * will never come ends. `close` adds `Connection: close`.
 */
export async function send(response: Response, res: NodeResponseLike, isHead: boolean, signal: AbortSignal, close: boolean): Promise<void> {
  // Name, value, name, value: Headers keeps each Set-Cookie apart, and Node takes them so.
  const head: string[] = [];
  response.headers.forEach((value, name) => head.push(name, value));
  if (close) head.push('connection', 'close');
  // Without a reason phrase (an empty statusText) Node sends the standard one. Never an undefined one in
  // its place: on-headers (under compression, morgan...) would take it for the headers and drop them.
  if (response.statusText) res.writeHead(response.status, response.statusText, head);
  else res.writeHead(response.status, head);
  const body = isHead ? null : response.body;
  if (body === null) {
    await response.body?.cancel();
    return void res.end();
  }
  const reader = body.getReader();
  let wake = (): void => undefined;
  const stop = (): void => {
    reader.cancel(signal.reason).catch(() => undefined);
    wake();
  };
  signal.addEventListener('abort', stop);
  try {
    if (signal.aborted) stop();
    for (let next = await reader.read(); !next.done && !signal.aborted; next = await reader.read()) {
      // Back-pressure: wait for the socket to drain, or for the client to leave.
      if (!res.write(next.value)) await new Promise<void>((resolve) => res.once('drain', (wake = resolve)));
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  res.end();
}
