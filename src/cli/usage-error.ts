/**
 * A mistake in the command line: the bin prints its one-line message with a
 * hint and exits 64 (EX_USAGE) before anything is sent.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
