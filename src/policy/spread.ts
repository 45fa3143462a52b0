/** How far above the server's wait a client may land: the spread that breaks lockstep. */
export const RETRY_AFTER_SPREAD = 0.2;

/**
 * A wait of at least `ms` and at most `ms` plus {@link RETRY_AFTER_SPREAD}
 * of it, placed by `random` in [0, 1), in whole ms (rounded up, so a
 * server's wait is never undercut): clients told the same time return over
 * a window instead of in lockstep.
 *
 * `max` is a hard cap (whole ms): no wait is longer. Between `ms` and the cap the
 * spread shrinks to fit; a wait that the cap cuts short (`ms > max`) is
 * spread *below* the cap instead, over the same share of it, so a fleet
 * held at the cap does not return at one instant either.
 *
 * @example
 * spread(5000, 0.5);          // 5500
 * spread(5000, 0.5, 5500);    // 5250: the spread fits under the cap
 * spread(600_000, 0.5, 300_000); // 275000: capped, spread below the cap
 */
export const spread = (ms: number, random: number, max = Infinity): number => {
  const cap = Math.floor(max);
  const low = ms <= cap ? ms : cap / (1 + RETRY_AFTER_SPREAD);
  const high = Math.min(cap, ms * (1 + RETRY_AFTER_SPREAD));
  return Math.min(cap, Math.ceil(low + (high - low) * random));
};
