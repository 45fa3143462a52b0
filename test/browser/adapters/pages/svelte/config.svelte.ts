import type { Config } from '../harness.js';

/** The props of the page's App, as deep `$state`: the test changes its urls. */
export const props: { config: Config } = $state({
  config: { poll: { url: null, interval: 0, retries: 0, backoffMs: 0 }, fetch: { url: null, retries: 0, backoffMs: 0 }, operation: { url: null, interval: 0, retries: 0 } },
});
