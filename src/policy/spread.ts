/** How far above the server's Retry-After a client may land: the spread that breaks lockstep. */
export const RETRY_AFTER_SPREAD = 0.2;

/**
 * A wait of at least `ms` and at most `ms` plus {@link RETRY_AFTER_SPREAD}
 * of it, placed by `random` in [0, 1): clients told the same time return
 * over a window instead of in lockstep. `max` caps the floor, never the
 * spread's share of it (a capped wait is still spread).
 */
export const spread = (ms: number, random: number, max = Infinity): number => {
  const floor = Math.min(ms, max);
  return floor + floor * RETRY_AFTER_SPREAD * random;
};
