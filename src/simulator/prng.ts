/**
 * mulberry32: a 32-bit seeded generator, small and fast, good enough to
 * spread simulated clients (not for cryptography). The same seed always
 * yields the same sequence, which is what makes a simulation repeatable.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    return mix(state);
  };
}

/** mulberry32's output for a state: the draw in [0, 1). */
function mix(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/**
 * A seed for an independent stream derived from `seed` and a stream number,
 * so that e.g. network delays and client jitter do not share one sequence.
 */
export function deriveSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A draw from Normal(mean, sd) by the Box-Muller transform, from two uniform
 * draws: `u` in (0, 1] (so the log is finite: pass `1 - random()`) and `v` in [0, 1).
 */
export function normal(u: number, v: number, mean: number, sd: number): number {
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * A generator of Normal(mean, sd) draws that uses both values of each
 * Box-Muller pair: half the calls to `random`, `log` and `sqrt`.
 */
export function normals(random: () => number, mean: number, sd: number): () => number {
  let spare = NaN;
  return () => {
    if (!Number.isNaN(spare)) {
      const value = spare;
      spare = NaN;
      return value;
    }
    const radius = sd * Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    spare = mean + radius * Math.sin(angle);
    return mean + radius * Math.cos(angle);
  };
}

/**
 * One draw of the mulberry32 stream whose state is `states[i]`: the same
 * numbers as `mulberry32(seed)` for `states[i] = seed`, for many streams kept
 * in one typed array (a fleet's per-client network paths) instead of a
 * closure each.
 */
export function drawFrom(states: Uint32Array, i: number): number {
  const state = (states[i]! + 0x6d2b79f5) >>> 0;
  states[i] = state;
  return mix(state);
}
