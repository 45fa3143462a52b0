import type { VirtualClock } from '../testing/index.js';
import type { ClientMetrics } from './metrics.js';
import { ModelledHeaders, ModelledResponse } from './modelled-response.js';
import type { Answer } from './server-model.js';

/** Draws one one-way network delay of a client's path, ms. */
export type Latency = (client: number) => number;

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

/** Requests that reached the server in one window, in the order they arrived there: column `i` is one request. */
export interface Arrivals {
  /** When it arrived, virtual ms. */
  time: number[];
  /** The client that sent it. */
  client: number[];
  /** The shard's number of the request (its order among the shard's requests): ties at the server go by client, then by this. */
  request: number[];
  /** Its If-None-Match, or null. */
  ifNoneMatch: Array<string | null>;
}

/** The server's answers to a shard's arrivals: column `i` answers request `request[i]`, which arrived at `arrived[i]`, with `answers[answer[i]]`. */
export interface Answers {
  request: number[];
  arrived: number[];
  answer: number[];
}

/** Makes an empty {@link Answers} (or {@link Arrivals}, with `ifNoneMatch`). */
export const noAnswers = (): Answers => ({ request: [], arrived: [], answer: [] });

interface InFlight {
  client: number;
  /** The delay of the way back, drawn when the request was sent: a client's draws then come in the order of its requests, however the fleet's windows fall. */
  back: number;
  resolve: (response: ModelledResponse) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
}

/**
 * The simulated network of one shard of the fleet: each client's `fetch`
 * draws the delays of both ways and sends its request, which waits where it
 * arrived (in {@link SimulatedNetwork.takeArrivals}) until the server's
 * answer comes back through {@link SimulatedNetwork.answer}; the answer then
 * travels back after the server's response time and the second delay, and the
 * promise resolves with a {@link ModelledResponse} (a `Response` as a
 * poller reads it, with `Content-Length` as a real server sends it). A
 * request aborted in flight rejects with the signal's reason when its answer
 * would have come, as the real fetch does once it notices.
 */
export class SimulatedNetwork {
  #time: VirtualClock;
  #metrics: ClientMetrics;
  #latency: Latency;
  #responseTime: number;
  #answers: readonly Answer[];
  #inFlight = new Map<number, InFlight>();
  #sent = 0;
  #arrivals: Arrivals = { time: [], client: [], request: [], ifNoneMatch: [] };

  /** `latency(client)` draws one one-way delay of that client's path; `answers` is the server's list of answers, by index. */
  constructor(time: VirtualClock, metrics: ClientMetrics, latency: Latency, responseTime: number, answers: readonly Answer[]) {
    this.#time = time;
    this.#metrics = metrics;
    this.#latency = latency;
    this.#responseTime = responseTime;
    this.#answers = answers;
  }

  /** The `fetch` of simulated client `client`. */
  fetchOf(client: number): typeof fetch {
    return ((_input: unknown, init?: RequestInit) =>
      new Promise<ModelledResponse>((resolve, reject) => {
        const time = this.#time;
        const sent = time.now();
        this.#metrics.sent(client, sent);
        const ifNoneMatch = ifNoneMatchOf(init);
        const request = this.#sent++;
        const there = this.#latency(client);
        this.#inFlight.set(request, { client, back: this.#latency(client), resolve, reject, signal: init?.signal ?? undefined });
        time.at(sent + there, () => {
          const arrivals = this.#arrivals;
          arrivals.time.push(time.now());
          arrivals.client.push(client);
          arrivals.request.push(request);
          arrivals.ifNoneMatch.push(ifNoneMatch);
        });
      })) as unknown as typeof fetch;
  }

  /** The requests that arrived since the last call. */
  takeArrivals(): Arrivals {
    const arrivals = this.#arrivals;
    this.#arrivals = { time: [], client: [], request: [], ifNoneMatch: [] };
    return arrivals;
  }

  /** Sends the server's answers back: each reaches its client after the response time and a latency draw. */
  answer(answers: Answers): void {
    const time = this.#time;
    for (let i = 0; i < answers.request.length; i += 1) {
      const request = answers.request[i]!;
      const flight = this.#inFlight.get(request)!;
      this.#inFlight.delete(request);
      const answer = this.#answers[answers.answer[i]!]!;
      time.at(answers.arrived[i]! + this.#responseTime + flight.back, () => {
        if (flight.signal?.aborted) return flight.reject(flight.signal.reason);
        const { body } = answer;
        this.#metrics.delivered(flight.client, time.now(), answer.status, body === null ? 0 : body.length, answer.retryAfter);
        flight.resolve(new ModelledResponse(answer.status, body, headersOf(answer)));
      });
    }
  }
}
