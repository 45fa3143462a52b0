/** "240 ms", "1.5 s", "2 min". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** An error as one line: its message, or its name when it has none. */
export function describeError(error: unknown): string {
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) {
    const { name, message } = error as Error;
    return message ? message : name;
  }
  return String(error);
}
