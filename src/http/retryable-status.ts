/**
 * True for the statuses that `poll` retries: 408 Request Timeout,
 * 429 Too Many Requests and every 5xx.
 */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status < 600);
