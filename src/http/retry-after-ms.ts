import { decimal } from './rate-limit-field.js';

/**
 * Reads a `retry-after-ms` (OpenAI- and Anthropic-style APIs) or
 * `x-ms-retry-after-ms` (Azure Cosmos DB, Storage) value: Retry-After in
 * milliseconds, a non-negative decimal. Anything else (empty, negative,
 * `1e3`, garbage) is `null`; a figure past 2^1024 is `Infinity`, capped by
 * the caller (`maxRetryAfter`).
 *
 * @example
 * parseRetryAfterMs('1500'); // 1500
 */
export const parseRetryAfterMs = (value: string | null | undefined): number | null => decimal(value);
