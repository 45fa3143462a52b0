import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRetryBudget, fetchWithRetry, retry, type RetryBudget } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';

// The edges of retry and fetchWithRetry that the mutation run found untested:
// option checks at their bounds, what a custom fetch may resolve with, which
// bodies are sent again, the key without randomUUID, the budget's refunds,
// the body followed after the headers. A scripted fetch stands in for the
// network: these are about pollite's own decisions, not HTTP.

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A fetch that answers the n-th call with `answers[n]` (the last one again after that), counting calls and what they sent. */
function scriptedFetch(answers: Array<() => Response>) {
  const calls: Array<{ method: string; body: string | null; key: string | null }> = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push({ method: request.method, body: request.body ? await request.text() : null, key: request.headers.get('idempotency-key') });
    return answers[Math.min(calls.length - 1, answers.length - 1)]!();
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}
const answer = (status: number) => (): Response => new Response(status === 204 ? null : `{"status":${status}}`, { status });
const URL_ = 'http://127.0.0.1:9/orders';
const noop = (): void => undefined;
const yes = (): boolean => true;

describe('fetchWithRetry option checks at their bounds', () => {
  it.each([
    [{ methods: ['GET', 5] }, 'Expected `retry.methods` to be an array of strings'],
    [{ statusCodes: [503, 600] }, 'Expected `retry.statusCodes` to be an array of HTTP status codes (integers 100-599)'],
    [{ statusCodes: [503.5] }, 'Expected `retry.statusCodes` to be an array of HTTP status codes (integers 100-599)'],
    [{ budget: { refund: noop, retryCost: 5 } }, 'Expected `retry.budget` to be a RetryBudget (see createRetryBudget)'],
    [{ budget: { withdraw: yes, retryCost: 5 } }, 'Expected `retry.budget` to be a RetryBudget (see createRetryBudget)'],
    [{ budget: { withdraw: yes, refund: noop } }, 'Expected `retry.budget` to be a RetryBudget (see createRetryBudget)'],
    [{ wake: { ready: yes } }, 'Expected `retry.wake` to be a Wake ({ reason, subscribe, ready })'],
    [{ wake: { subscribe: () => noop } }, 'Expected `retry.wake` to be a Wake ({ reason, subscribe, ready })'],
  ] as Array<[object, string]>)('refuses %o, sending nothing', async (options, message) => {
    const server = scriptedFetch([answer(200)]);
    const error = await fetchWithRetry(URL_, { retry: { fetch: server.fetch, ...options } as never }).catch((e: unknown) => e);
    expect(error).toStrictEqual(new TypeError(message));
    expect(server.calls).toEqual([]);
  });

  it('takes the bounds themselves: status codes 100 and 599, a duck-typed budget and wake', async () => {
    const server = scriptedFetch([answer(599), answer(200)]);
    // timeoutCost is left out on purpose: the check asks for withdraw, refund and retryCost.
    const budget = { withdraw: yes, refund: noop, retryCost: 5 } as unknown as RetryBudget;
    const wake = { reason: 'now', subscribe: () => noop, ready: () => false };
    const { env, delays } = recordingEnv();
    const response = await fetchWithRetry(URL_, { retry: { fetch: server.fetch, env, statusCodes: [100, 599], budget, wake, backoff: () => 7 } });
    expect([response.status, server.calls.length, delays]).toEqual([200, 2, [7]]);
  });

  it('refuses a null init, and a runtime without fetch when none is given', async () => {
    await expect(fetchWithRetry(URL_, null as never)).rejects.toStrictEqual(new TypeError('Expected `init` to be an object'));
    vi.stubGlobal('fetch', undefined);
    await expect(fetchWithRetry(URL_)).rejects.toStrictEqual(new TypeError('Expected `fetch` to be a function: this runtime has none'));
  });
});

describe('fetchWithRetry and what a custom fetch resolves with', () => {
  it.each([
    ['undefined', undefined, 'undefined'],
    ['an object without a status', { headers: new Headers() }, '[object Object]'],
    ['a status without headers', { status: 200 }, '[object Object]'],
    ['headers without get', { status: 200, headers: {} }, '[object Object]'],
  ])('rejects %s with a TypeError, not retried', async (_label, value, shown) => {
    let calls = 0;
    const fetchImpl = (async () => {
      calls += 1;
      return value;
    }) as unknown as typeof fetch;
    const error = await fetchWithRetry(URL_, { retry: { fetch: fetchImpl, env: recordingEnv().env } }).catch((e: unknown) => e);
    expect(error).toStrictEqual(new TypeError(`Expected \`fetch\` to resolve to a Response, got ${shown}`));
    expect(calls).toBe(1);
  });

  it('does not retry what fetch throws when it is a bug, not a network failure', async () => {
    let calls = 0;
    const bug = new RangeError('a bug');
    const fetchImpl = (async () => {
      calls += 1;
      throw bug;
    }) as typeof fetch;
    await expect(fetchWithRetry(URL_, { retry: { fetch: fetchImpl, env: recordingEnv().env } })).rejects.toBe(bug);
    expect(calls).toBe(1);
  });

  it('returns a duck-typed answer of a status below 200 as it is, body unfollowed', async () => {
    const odd = { status: 199, statusText: '', headers: new Headers(), body: new ReadableStream() };
    const fetchImpl = (async () => odd) as unknown as typeof fetch;
    // A timeout, so that the body would be followed (a real Response cannot have this status).
    expect(await fetchWithRetry(URL_, { retry: { fetch: fetchImpl, env: recordingEnv().env, timeout: 5000 } })).toBe(odd);
  });
});

describe('fetchWithRetry: which requests are sent again', () => {
  it.each([
    ['a Blob', () => new Blob(['b'])],
    ['FormData', () => {
      const form = new FormData();
      form.set('b', '1');
      return form;
    }],
    ['URLSearchParams', () => new URLSearchParams({ b: '1' })],
    ['a string', () => 'b'],
  ])('a PUT with %s as its body is retried, the body sent each time', async (_label, body) => {
    const server = scriptedFetch([answer(503), answer(200)]);
    const response = await fetchWithRetry(URL_, { method: 'PUT', body: body(), retry: { fetch: server.fetch, env: recordingEnv().env } });
    expect(response.status).toBe(200);
    expect(server.calls.map((c) => c.method)).toEqual(['PUT', 'PUT']);
    // The same body each time (a form's boundary aside): the field named b.
    expect(server.calls.map((c) => c.body?.includes('b'))).toEqual([true, true]);
  });

  it("init.body replaces a Request's own body: then it is retried", async () => {
    const server = scriptedFetch([answer(503), answer(200)]);
    const input = new Request(URL_, { method: 'PUT', body: 'own' });
    const response = await fetchWithRetry(input, { body: 'given', retry: { fetch: server.fetch, env: recordingEnv().env } });
    expect(response.status).toBe(200);
    expect(server.calls.map((c) => c.body)).toEqual(['given', 'given']);
  });

  it('a method that is not listed is sent once', async () => {
    const server = scriptedFetch([answer(503), answer(200)]);
    const response = await fetchWithRetry(URL_, { method: 'PUT', body: 'x', retry: { fetch: server.fetch, env: recordingEnv().env, methods: ['GET'] } });
    expect([response.status, server.calls.length]).toEqual([503, 1]);
  });

  it('without crypto.randomUUID (an insecure origin), the key is a UUID v4 made of getRandomValues', async () => {
    vi.stubGlobal('crypto', {
      getRandomValues: (bytes: Uint8Array) => {
        for (let i = 0; i < bytes.length; i++) bytes[i] = i * 17;
        return bytes;
      },
    });
    const server = scriptedFetch([answer(503), answer(201)]);
    const response = await fetchWithRetry(URL_, { method: 'POST', body: '{}', retry: { fetch: server.fetch, env: recordingEnv().env, idempotencyKey: true } });
    expect(response.status).toBe(201);
    // Bytes 0, 17, 34…: the version nibble set to 4 (byte 6) and the variant bits to 10 (byte 8).
    expect(server.calls.map((c) => c.key)).toEqual(['00112233-4455-4677-8899-aabbccddeeff', '00112233-4455-4677-8899-aabbccddeeff']);
  });
});

describe('the budget', () => {
  it('withdraws 0 and refuses a negative or NaN cost, taking nothing', () => {
    const budget = createRetryBudget({ capacity: 10 });
    expect(budget.withdraw(0)).toBe(true);
    expect(budget.withdraw(-1)).toBe(false);
    expect(budget.withdraw(Number.NaN)).toBe(false);
    expect(budget.available).toBe(10);
  });

  it('an ending the caller chose (shouldRetry said no) is refunded; a POST sent once is not', async () => {
    const budget = createRetryBudget({ capacity: 10, retryCost: 5, successRefund: 1 });
    budget.withdraw(5);
    const server = scriptedFetch([answer(503)]);
    const env = recordingEnv().env;
    await fetchWithRetry(URL_, { method: 'POST', body: '{}', retry: { fetch: server.fetch, env, budget } });
    expect(budget.available).toBe(5);
    await fetchWithRetry(URL_, { retry: { fetch: server.fetch, env, budget, shouldRetry: () => false } });
    expect(budget.available).toBe(6);
    expect(server.calls.length).toBe(2);
  });
});

describe('the messages of the deadlines', () => {
  it("name the call's timeout and the attempt's", async () => {
    const never = (): Promise<never> => new Promise(() => undefined);
    const { env } = recordingEnv();
    await expect(retry(never, { env, timeout: 1000 })).rejects.toMatchObject({ name: 'TimeoutError', message: 'Retrying timed out after 1000 ms' });
    const seen: unknown[] = [];
    await expect(
      retry(never, { env, attemptTimeout: 300, retries: 1, backoff: () => 0, onRetry: ({ error }) => void seen.push(error) }),
    ).rejects.toMatchObject({ name: 'TimeoutError', message: 'Attempt timed out after 300 ms' });
    expect(seen).toEqual([expect.objectContaining({ name: 'TimeoutError', message: 'Attempt timed out after 300 ms' })]);
  });
});

describe('fetchWithRetry follows the body it resolves with', () => {
  it('an abort while the body is read fails the read with the reason', async () => {
    const controller = new AbortController();
    const fetchImpl = (async () => new Response(new ReadableStream({ start: () => undefined }), { status: 200 })) as typeof fetch;
    const response = await fetchWithRetry(URL_, { signal: controller.signal, retry: { fetch: fetchImpl, env: recordingEnv().env } });
    const reading = response.text();
    const reason = new Error('stop reading');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });

  it('a body that breaks off fails the read with its error', async () => {
    const broken = new TypeError('terminated');
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode('{"part'));
        } else controller.error(broken);
      },
    });
    const fetchImpl = (async () => new Response(body, { status: 200 })) as typeof fetch;
    const response = await fetchWithRetry(URL_, { retry: { fetch: fetchImpl, env: recordingEnv().env, timeout: 5000 } });
    await expect(response.text()).rejects.toBe(broken);
  });
});
