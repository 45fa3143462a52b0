/** Elapsed time for humans: `0.4s`, `12.0s`, `2m05s`. */
export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** A wait ahead: `2.0 s`. */
export const formatDelay = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Byte counts: `512 B`, `1.2 kB`, `3.4 MB` (SI units, as network tools count). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `1 request`, `2 requests`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
