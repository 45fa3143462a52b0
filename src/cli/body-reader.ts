import { readBounded } from './read-bounded.js';

/** The largest 2xx body the command reads: 16 MiB. Past it the command stops with exit 2. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A 2xx body past {@link MAX_BODY_BYTES}: read no further, and not retried. */
export class BodyTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`the body is larger than ${limit / 1024 / 1024} MiB, the most pollite reads`);
    this.name = 'BodyTooLargeError';
    this.limit = limit;
  }
}

/** A 2xx body as the command keeps it: parsed for the conditions, and the bytes as they came for `--json`. */
export interface ReceivedBody {
  /** The parsed JSON; the text when JSON is not required and it is not JSON; `undefined` when empty. */
  value: unknown;
  bytes: Uint8Array;
}

/**
 * The `parse` of the command's `poll`: reads a 2xx body (at most `limit`
 * bytes, counting them) as JSON, or as text when JSON is not required.
 */
export const bodyReader =
  (options: { requireJson: boolean; onBytes: (bytes: number) => void; limit?: number }) =>
  async (response: Response): Promise<ReceivedBody> => {
    const limit = options.limit ?? MAX_BODY_BYTES;
    if (response.body === null) return { value: undefined, bytes: new Uint8Array(0) };
    const { bytes, overflowed } = await readBounded(response.body, { limit, onBytes: options.onBytes });
    if (overflowed) throw new BodyTooLargeError(limit);
    const text = new TextDecoder().decode(bytes);
    if (text === '') return { value: undefined, bytes };
    try {
      return { value: JSON.parse(text) as unknown, bytes };
    } catch (error) {
      if (options.requireJson) throw error;
      return { value: text, bytes };
    }
  };
