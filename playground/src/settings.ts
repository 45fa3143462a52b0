/** What the page needs to know, from the server's <meta> tag and the query string (the browser tests use it to go fast). */
export interface Settings {
  /** Origin of the demo job API. */
  api: string;
  /** usePoll's interval, ms. */
  interval: number;
  /** Durations of the jobs started on load, ms; a trailing `!` makes a job end as failed. */
  jobs: { duration: number; outcome: 'done' | 'failed' }[];
  /** useFetchWithRetry's backoff base, ms. */
  backoffBase: number;
}

export function readSettings(): Settings {
  const query = new URLSearchParams(location.search);
  const api = query.get('api') ?? document.querySelector<HTMLMetaElement>('meta[name="pollite-api"]')?.content ?? '';
  // One job that ends soon, one that fails, one that keeps polling for a few minutes: the switches always have pollers to act on.
  const jobs = (query.get('jobs') ?? '30000,60000!,300000').split(',').map((spec) => ({
    duration: Number.parseInt(spec, 10),
    outcome: spec.endsWith('!') ? ('failed' as const) : ('done' as const),
  }));
  return {
    api: api || location.origin,
    interval: Number(query.get('interval') ?? 1000),
    jobs,
    backoffBase: Number(query.get('backoff') ?? 500),
  };
}
