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

/** The server's answers to a shard's arrivals: column `i` answers request `request[i]` with `answers[answer[i]]`. */
export interface Answers {
  request: number[];
  answer: number[];
}

/** Makes an empty {@link Answers}. */
export const noAnswers = (): Answers => ({ request: [], answer: [] });
const noArrivals = (): Arrivals => ({ time: [], client: [], request: [], ifNoneMatch: [] });

interface InFlight {
  client: number;
  /** The delay of the way back, drawn when the request was sent: a client's draws then come in the order of its requests, however the fleet's windows fall. */
  back: number;
  resolve: (response: ModelledResponse) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  /** The server's answer, once it is known. */
  answer?: Answer;
  /** True once its way back is over: it is delivered as soon as the answer is known (only a server answering in under 1 ms is that quick). */
  due?: boolean;
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
  #arrivals: Arrivals = noArrivals();

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
        const flight: InFlight = { client, back: this.#latency(client), resolve, reject, signal: init?.signal ?? undefined };
        this.#inFlight.set(request, flight);
        time.at(sent + there, () => {
          const arrived = time.now();
          const arrivals = this.#arrivals;
          arrivals.time.push(arrived);
          arrivals.client.push(client);
          arrivals.request.push(request);
          arrivals.ifNoneMatch.push(ifNoneMatch);
          // The way back is timed from here, in the client's own time line: when the server's answer
          // is handed over (at the end of some window) must not decide which of the client's timers
          // due in the same ms fires first.
          time.at(arrived + this.#responseTime + flight.back, () => {
            if (flight.answer) this.#deliver(request, flight, flight.answer);
            else flight.due = true;
          });
        });
      })) as unknown as typeof fetch;
  }

  /** The requests that arrived since the last call. */
  takeArrivals(): Arrivals {
    const arrivals = this.#arrivals;
    this.#arrivals = noArrivals();
    return arrivals;
  }

  /** Hands over the server's answers; each reaches its client once its way back is over (at once, if it already is). */
  answer(answers: Answers): void {
    for (let i = 0; i < answers.request.length; i += 1) {
      const request = answers.request[i]!;
      const flight = this.#inFlight.get(request)!;
      const answer = this.#answers[answers.answer[i]!]!;
      if (flight.due) this.#deliver(request, flight, answer);
      else flight.answer = answer;
    }
  }

  #deliver(request: number, flight: InFlight, answer: Answer): void {
    this.#inFlight.delete(request);
    if (flight.signal?.aborted) return flight.reject(flight.signal.reason);
    const { body } = answer;
    this.#metrics.delivered(flight.client, this.#time.now(), answer.status, body === null ? 0 : body.length, answer.retryAfter);
    flight.resolve(new ModelledResponse(answer.status, body, headersOf(answer)));
  }
}
