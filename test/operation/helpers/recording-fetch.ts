/** One call of a {@link recordingFetch}: the URL and the init it got, less its signal. */
export interface FetchCall {
  url: string;
  init: RequestInit;
}

/**
 * The platform's fetch, recording the URL and init of every call, for the
 * init fields a server cannot see (`credentials`, `mode`, `dispatcher`...).
 */
export function recordingFetch(): { fetch: typeof fetch; calls: FetchCall[] } {
  const calls: FetchCall[] = [];
  const recording = ((input: string | URL | Request, init: RequestInit = {}) => {
    const { signal: _signal, ...rest } = init;
    calls.push({ url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, init: rest });
    return globalThis.fetch(input, init);
  }) as typeof globalThis.fetch;
  return { fetch: recording, calls };
}
