/** A window of virtual time, ms from the start of the simulation: `[start, end)`. */
export interface Outage {
  /** A finite number >= 0. */
  start: number;
  /** A finite number >= `start`. */
  end: number;
  /**
   * Whole seconds sent as `Retry-After` with the outage's 503s; `null` sends none.
   * @default null
   */
  retryAfter?: number | null;
}

/**
 * What the modelled API does. Every time is virtual ms from the start;
 * `simulate` refuses (with a TypeError naming it, e.g. `server.capacity`)
 * a setting outside the range documented here, or a key not listed here.
 */
export interface ServerModel {
  /**
   * Requests per second served (>= 0, or Infinity); further requests in the
   * same second get a 503 (with `overloadRetryAfter`, if set).
   * @default Infinity
   */
  capacity?: number;
  /** Whole seconds sent as `Retry-After` with overload 503s; `null` sends none. @default null */
  overloadRetryAfter?: number | null;
  /** Windows in which every request gets a 503. @default [] */
  outages?: Outage[];
  /**
   * A rate limit: beyond `rps` requests in one second (>= 0, or Infinity), a
   * 429 with `Retry-After: retryAfter` whole seconds (default 1: the window
   * resets within the second).
   * @default none
   */
  rateLimit?: {
    /** Requests allowed in one second, >= 0 or Infinity. */
    rps: number;
    /** Whole seconds sent as `Retry-After` with the 429s. @default 1 */
    retryAfter?: number;
  };
  /** Time the server spends on each request, ms, a finite number >= 0. @default 20 */
  responseTime?: number;
  /** When the polled job finishes (>= 0, or Infinity); its body then says `done`. @default Infinity (never) */
  jobDoneAt?: number;
  /** Bytes of each 2xx body (padded JSON), an integer from 0 to 100,000,000. @default 200 */
  bodyBytes?: number;
}

/** The server's answer to one request. */
export interface Answer {
  status: number;
  /** `null` for 304 and errors. */
  body: string | null;
  etag: string | null;
  retryAfter: string | null;
}

const ETAG_RUNNING = '"running"';
const ETAG_DONE = '"done"';

const paddedBody = (status: string, bytes: number): string => {
  const bare = JSON.stringify({ status, pad: '' });
  return JSON.stringify({ status, pad: 'x'.repeat(Math.max(0, bytes - bare.length)) });
};

/**
 * The modelled API's decisions, in the order a real stack makes them: an
 * outage answers before anything else, then the rate limiter, then the
 * capacity of the workers; a request that gets through is served, as a
 * 304 when its `If-None-Match` still matches.
 */
export class ModelledServer {
  readonly responseTime: number;
  #capacity: number;
  #outages: Outage[];
  #rateLimit: { rps: number; retryAfter?: number } | undefined;
  #jobDoneAt: number;
  #second = -1;
  #served = 0;
  #admitted = 0;
  /** The answers, made once: a fleet draws a million of them, and no one changes one. */
  #answers: Record<string, Answer>;
  #outageAnswers = new Map<Outage, Answer>();
  /**
   * Every answer this server can give, in a fixed order: a server built from
   * the same model lists the same answers, so an answer crosses to another
   * thread as its index here.
   */
  readonly answers: readonly Answer[];

  constructor(model: ServerModel = {}) {
    this.responseTime = model.responseTime ?? 20;
    this.#capacity = model.capacity ?? Infinity;
    this.#outages = model.outages ?? [];
    this.#rateLimit = model.rateLimit;
    this.#jobDoneAt = model.jobDoneAt ?? Infinity;
    const bytes = model.bodyBytes ?? 200;
    const answer = (status: number, body: string | null, etag: string | null, retryAfter: string | null): Answer => Object.freeze({ status, body, etag, retryAfter });
    this.#answers = {
      limited: answer(429, null, null, String(this.#rateLimit?.retryAfter ?? 1)),
      overloaded: answer(503, null, null, model.overloadRetryAfter == null ? null : String(model.overloadRetryAfter)),
      running: answer(200, paddedBody('running', bytes), ETAG_RUNNING, null),
      done: answer(200, paddedBody('done', bytes), ETAG_DONE, null),
      runningNotModified: answer(304, null, ETAG_RUNNING, null),
      doneNotModified: answer(304, null, ETAG_DONE, null),
    };
    for (const outage of this.#outages) this.#outageAnswers.set(outage, answer(503, null, null, outage.retryAfter == null ? null : String(outage.retryAfter)));
    this.answers = Object.freeze([...Object.values(this.#answers), ...this.#outageAnswers.values()]);
  }

  /** The outage `time` falls in, if any. */
  outageAt(time: number): Outage | undefined {
    return this.#outages.find((outage) => time >= outage.start && time < outage.end);
  }

  /** Answers a request arriving at `time`. */
  handle(time: number, ifNoneMatch: string | null): Answer {
    const outage = this.outageAt(time);
    if (outage) return this.#outageAnswers.get(outage)!;
    const second = Math.floor(time / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#served = 0;
      this.#admitted = 0;
    }
    if (this.#rateLimit) {
      if (this.#admitted >= this.#rateLimit.rps) {
        // The window resets within the second, and Retry-After counts whole seconds.
        return this.#answers.limited!;
      }
      this.#admitted += 1;
    }
    if (this.#served >= this.#capacity) {
      return this.#answers.overloaded!;
    }
    this.#served += 1;
    const done = time >= this.#jobDoneAt;
    const etag = done ? ETAG_DONE : ETAG_RUNNING;
    if (ifNoneMatch === etag) return this.#answers[done ? 'doneNotModified' : 'runningNotModified']!;
    return this.#answers[done ? 'done' : 'running']!;
  }
}
