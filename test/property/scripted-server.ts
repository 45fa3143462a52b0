import fc from 'fast-check';
import type { VirtualClock } from '../../src/testing/index.js';
import type { VirtualPage } from './virtual-world.js';

/** How an answer's Retry-After header is written. */
export type RetryAfterForm =
  | { form: 'none' }
  | { form: 'seconds'; seconds: number }
  | { form: 'date'; offsetSeconds: number }
  | { form: 'garbage'; text: string };

/** One scripted answer of the server, by request index. Latencies never tie with a requestTimeout (see below). */
export type Answer =
  | { kind: 'running' | 'done'; etag: string | null; latency: number }
  /** 200 headers (with an ETag) after `latency`, then a body that never finishes. */
  | { kind: 'stalled-body'; etag: string; latency: number }
  | { kind: 'not-modified'; latency: number }
  | { kind: 'retryable'; status: number; retryAfter: RetryAfterForm; latency: number }
  | { kind: 'fatal'; status: number; latency: number }
  | { kind: 'drop'; latency: number }
  /** The connection is refused after `latency`: a request that never reached a server (`unreachable`). */
  | { kind: 'refused'; latency: number }
  | { kind: 'bad-json'; latency: number };

/** What the server saw and did for one request. */
export interface SentRequest {
  at: number;
  /** When the request ended for the client: response delivered, connection dropped or refused, or aborted. */
  endedAt?: number;
  ifNoneMatch: string | null;
  hiddenAtSend: boolean;
  answer: Answer;
  end?: 'response' | 'dropped' | 'refused' | 'aborted';
  /** The Retry-After the client should read, ms, measured when it was sent; null when invalid or absent. */
  retryAfterMs: number | null;
}

// Strings that must never pass for a Retry-After (the last one: Arabic-Indic digits as a server's raw UTF-8 bytes).
const GARBAGE = ['soon', '-5', '-0', '1.5', '1e3', '+5', '5s', '0x10', 'Infinity', 'NaN', '', '2026-01-01T12:00:30Z', Buffer.from('١٢', 'utf8').toString('latin1')];

/** Latencies are 10k + 5 ms and request timeouts multiples of 10 ms, so the two never tie. */
const latency = fc.integer({ min: 0, max: 30 }).map((n) => n * 10 + 5);

export const retryAfterArb: fc.Arbitrary<RetryAfterForm> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ form: 'none' as const }) },
  { weight: 3, arbitrary: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(99_999_999_999)).map((seconds) => ({ form: 'seconds' as const, seconds })) },
  // A date at least 2 s ahead is always 1 s or more away (it is rounded to the second); one 0-1 s ahead could be either.
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -120, max: 0 }), fc.integer({ min: 2, max: 400 })).map((offsetSeconds) => ({ form: 'date' as const, offsetSeconds })) },
  { weight: 1, arbitrary: fc.constantFrom(...GARBAGE).map((text) => ({ form: 'garbage' as const, text })) },
);

const etagArb = fc.constantFrom(null, '"a"', '"b"', 'W/"c"', '"' + 'x'.repeat(200) + '"');

export const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('running' as const), etag: etagArb, latency }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('done' as const), etag: etagArb, latency }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('not-modified' as const), latency }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('retryable' as const), status: fc.constantFrom(408, 429, 500, 502, 503, 504), retryAfter: retryAfterArb, latency }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fatal' as const), status: fc.constantFrom(400, 401, 403, 404, 410, 422, 301), latency }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), latency }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refused' as const), latency }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad-json' as const), latency }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stalled-body' as const), etag: fc.constantFrom('"stalled"', 'W/"s"'), latency }) },
);

/** After the script runs out, the server says done. */
export const FINAL: Answer = { kind: 'done', etag: null, latency: 5 };

function retryAfterHeader(form: RetryAfterForm, now: number): { text: string | null; ms: number | null } {
  switch (form.form) {
    case 'none':
      return { text: null, ms: null };
    case 'seconds':
      return { text: String(form.seconds), ms: form.seconds * 1000 };
    case 'date': {
      const at = Math.floor(now / 1000) * 1000 + form.offsetSeconds * 1000;
      return { text: new Date(at).toUTCString(), ms: Math.max(0, at - now) };
    }
    case 'garbage':
      return { text: form.text, ms: null };
  }
}

/**
 * A modelled server behind a modelled `fetch`: answers the i-th request with
 * `script[i]` after its latency in virtual time, honours the request's
 * signal like a real fetch, and records everything, including how many
 * requests were in flight at once.
 */
export function scriptedFetch(clock: VirtualClock, page: VirtualPage, script: Answer[]) {
  const log: SentRequest[] = [];
  const inFlight = { now: 0, max: 0 };
  const fetchImpl = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    void input;
    const answer = script[log.length] ?? FINAL;
    const headers = new Headers(init?.headers);
    const sent: SentRequest = { at: clock.now(), ifNoneMatch: headers.get('if-none-match'), hiddenAtSend: page.hidden, answer, retryAfterMs: null };
    const index = log.length;
    log.push(sent);
    inFlight.now += 1;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const finish = (end: SentRequest['end']): void => {
        inFlight.now -= 1;
        sent.end = end;
        sent.endedAt = clock.now();
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        clock.clearTimeout(timer);
        finish('aborted');
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        inFlight.now -= 1;
        sent.end = 'aborted';
        sent.endedAt = clock.now();
        reject(signal.reason);
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = clock.setTimeout(
        () => {
          if (answer.kind === 'drop') {
            finish('dropped');
            reject(new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));
            return;
          }
          if (answer.kind === 'refused') {
            finish('refused');
            reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }) }));
            return;
          }
          finish('response');
          resolve(respond(answer, index, sent, clock.now()));
        },
        answer.latency,
      );
    });
  };
  return { fetch: fetchImpl as typeof fetch, log, inFlight };
}

function respond(answer: Answer, index: number, sent: SentRequest, now: number): Response {
  const json = (status: number, body: string, headers: Record<string, string> = {}): Response =>
    new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
  switch (answer.kind) {
    case 'running':
    case 'done':
      return json(200, JSON.stringify({ done: answer.kind === 'done', n: index }), answer.etag === null ? {} : { etag: answer.etag });
    case 'not-modified':
      return new Response(null, { status: 304 });
    case 'retryable': {
      const retryAfter = retryAfterHeader(answer.retryAfter, now);
      sent.retryAfterMs = retryAfter.ms;
      return json(answer.status, '{"error":"busy"}', retryAfter.text === null ? {} : { 'retry-after': retryAfter.text });
    }
    case 'fatal':
      return json(answer.status, '{"error":"no"}', answer.status === 301 ? { location: '/elsewhere' } : {});
    case 'bad-json':
      return json(200, '{"done": tru');
    case 'stalled-body':
      return new Response(new ReadableStream({ start: () => undefined }), { status: 200, headers: { 'content-type': 'application/json', etag: answer.etag } });
    case 'drop':
    case 'refused':
      throw new Error('unreachable');
  }
}

/** Whether a Retry-After paces the client: a valid one of a second or more (`0` and dates past are counted failures). */
export const pacedBy = (form: RetryAfterForm): boolean =>
  (form.form === 'seconds' && form.seconds >= 1) || (form.form === 'date' && form.offsetSeconds >= 2);

/** How `poll`'s spec classes an answer, given the options that matter. */
export type Verdict = 'ok' | 'done' | 'paced' | 'counted' | 'fatal' | 'parse' | 'hang';

export function verdict(answer: Answer, requestTimeout: number | undefined): Verdict {
  if (requestTimeout !== undefined && answer.latency > requestTimeout) return 'counted';
  switch (answer.kind) {
    case 'running':
    case 'not-modified':
      return 'ok';
    case 'done':
      return 'done';
    case 'retryable':
      return pacedBy(answer.retryAfter) ? 'paced' : 'counted';
    case 'fatal':
      return 'fatal';
    case 'drop':
    case 'refused':
      return 'counted';
    case 'bad-json':
      return 'parse';
    case 'stalled-body':
      // Only a requestTimeout ends a body that never finishes; that is a counted failure.
      return requestTimeout === undefined ? 'hang' : 'counted';
  }
}

/** What the spec says `poll` ends with, and the failures counted before each request. */
export type ModelOutcome =
  | { type: 'done'; n: number }
  | { type: 'http'; status: number }
  | { type: 'gave-up'; attempts: number; status: number | undefined }
  | { type: 'parse' }
  | { type: 'hang' };

export function modelRun(script: Answer[], retries: number, requestTimeout: number | undefined) {
  const failuresBefore: number[] = [];
  let failures = 0;
  for (let i = 0; ; i++) {
    const answer = script[i] ?? FINAL;
    failuresBefore.push(failures);
    const v = verdict(answer, requestTimeout);
    const requests = i + 1;
    if (v === 'done') return { requests, failuresBefore, outcome: { type: 'done', n: i } as ModelOutcome };
    if (v === 'fatal') return { requests, failuresBefore, outcome: { type: 'http', status: (answer as { status: number }).status } as ModelOutcome };
    if (v === 'parse') return { requests, failuresBefore, outcome: { type: 'parse' } as ModelOutcome };
    if (v === 'hang') return { requests, failuresBefore, outcome: { type: 'hang' } as ModelOutcome };
    if (v === 'ok') failures = 0;
    if (v === 'counted') {
      failures += 1;
      if (failures > retries) {
        const timedOut = requestTimeout !== undefined && answer.latency > requestTimeout;
        const status = !timedOut && answer.kind === 'retryable' ? answer.status : undefined;
        return { requests, failuresBefore, outcome: { type: 'gave-up', attempts: failures, status } as ModelOutcome };
      }
    }
  }
}
