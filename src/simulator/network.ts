import type { VirtualClock } from '../testing/index.js';
import type { MetricsRecorder } from './metrics.js';
import { ModelledHeaders, ModelledResponse } from './modelled-response.js';
import type { Answer, ModelledServer } from './server-model.js';

/** Draws one one-way network delay, ms. */
export type Latency = () => number;

const ifNoneMatchOf = (init: RequestInit | undefined): string | null => {
  const headers = init?.headers;
  if (headers === undefined) return null;
  if (headers instanceof Headers) return headers.get('if-none-match');
  if (Array.isArray(headers)) return new Headers(headers).get('if-none-match');
  // A plain record (what poll sends): read it as it is, a Headers per request would dominate a large fleet.
  for (const name in headers) if (name.toLowerCase() === 'if-none-match') return (headers as Record<string, string>)[name]!;
  return null;
};

/** The headers of each answer the server gives, made once per answer (a server's answers are made once too, see `ModelledServer`). */
const answerHeaders = new WeakMap<Answer, ModelledHeaders>();
const headersOf = (answer: Answer): ModelledHeaders => {
  let headers = answerHeaders.get(answer);
  if (!headers) {
    const fields: Record<string, string> = {};
    if (answer.body !== null) {
      fields['content-type'] = 'application/json';
      fields['content-length'] = String(answer.body.length);
    }
    if (answer.etag !== null) fields.etag = answer.etag;
    if (answer.retryAfter !== null) fields['retry-after'] = answer.retryAfter;
    answerHeaders.set(answer, (headers = new ModelledHeaders(fields)));
  }
  return headers;
};

/**
 * The `fetch` of simulated client `client`: the request travels to the
 * modelled server for one latency draw, is answered after the server's
 * response time, and travels back for another draw; the promise then
 * resolves with a {@link ModelledResponse} (a `Response` as a poller reads
 * it, with `Content-Length` as a real server sends it). A request aborted
 * in flight rejects with the signal's reason at once, as the real fetch does.
 */
export function simulatedFetch(
  client: number,
  time: VirtualClock,
  server: ModelledServer,
  metrics: MetricsRecorder,
  latency: Latency,
): typeof fetch {
  return ((_input: unknown, init?: RequestInit) =>
    new Promise<ModelledResponse>((resolve, reject) => {
      const sent = time.now();
      metrics.sent(client, sent);
      const ifNoneMatch = ifNoneMatchOf(init);
      const signal = init?.signal ?? undefined;
      time.at(sent + latency(), () => {
        const arrived = time.now();
        metrics.arrived(arrived, server.outageAt(arrived) !== undefined);
        const answer = server.handle(arrived, ifNoneMatch);
        time.at(arrived + server.responseTime + latency(), () => {
          if (signal?.aborted) {
            reject(signal.reason);
            return;
          }
          const { body } = answer;
          metrics.delivered(client, time.now(), answer.status, body === null ? 0 : body.length, answer.retryAfter);
          resolve(new ModelledResponse(answer.status, body, headersOf(answer)));
        });
      });
    })) as unknown as typeof fetch;
}
