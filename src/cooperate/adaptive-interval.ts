/**
 * `interval` as a range the data and the server move within: see
 * {@link PollOptions.interval}.
 */
export interface AdaptiveInterval {
  /** Shortest wait, ms: after a change, and the floor of every wait. */
  min: number;
  /** Longest wait between answers that are not failures, ms; after a failure, the backoff is added on top of the wait. */
  max: number;
  /**
   * Each unchanged answer (304, or a body equal to the last) multiplies the
   * wait by this, and so does each 429 (multiplicative increase).
   * @default 2
   */
  factor?: number;
  /**
   * What each success takes off the slowdown that 429s imposed, ms (additive decrease).
   * @default min / 10
   */
  step?: number;
}

/** An {@link AdaptiveInterval} with its defaults filled in. */
export type Pace = Required<AdaptiveInterval>;

/**
 * Where a poller stands: `data` is the wait the answers asked for (grows
 * while they do not change), `slowdown` the wait that 429s imposed (grows
 * multiplicatively, shrinks by `step` with each success).
 */
export interface PaceState {
  data: number;
  slowdown: number;
}

/** What an answer says about the pace. */
export type PaceSignal = 'changed' | 'unchanged' | 'throttled';

export const startPace = (pace: Pace): PaceState => ({ data: pace.min, slowdown: 0 });

/** The wait the state asks for, within `min`..`max`. */
export const paceWait = (state: PaceState, pace: Pace): number => Math.min(pace.max, Math.max(pace.min, state.data, state.slowdown));

/**
 * The pure pacing rule: the next state after an answer (AIMD for 429s,
 * multiplicative growth while unchanged). A 429 multiplies the wait by
 * `factor ** (1 + random)` (`random` in [0, 1): between factor and factor²),
 * so clients throttled together do not keep returning together; measured
 * in `bench/cooperate.mjs`, this spread halves the 429s of a fleet.
 * A `retryAfter` (ms) on a 2xx or 202 sets the data's wait outright,
 * within `min`..`max`, shorter or longer than it was; later unchanged
 * answers grow from there. A slowdown that 429s imposed still holds.
 */
export function nextPace(state: PaceState, pace: Pace, signal: PaceSignal, random: number, retryAfter: number | null = null): PaceState {
  if (signal === 'throttled') {
    return { data: state.data, slowdown: Math.min(pace.max, paceWait(state, pace) * pace.factor ** (1 + random)) };
  }
  const slowdown = Math.max(0, state.slowdown - pace.step);
  const data = retryAfter !== null ? Math.min(pace.max, Math.max(pace.min, retryAfter)) : signal === 'changed' ? pace.min : Math.min(pace.max, state.data * pace.factor);
  return { data, slowdown };
}

const finite = (value: unknown, atLeast: number): value is number =>
  typeof value === 'number' && value >= atLeast && value < Infinity;

/**
 * Validates `interval`: a plain number is today's fixed interval, an object
 * a {@link Pace}. Throws a `TypeError` naming the bad field.
 */
export function checkInterval(value: unknown): number | Pace {
  if (finite(value, 0)) return value;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError('Expected `interval` to be a finite number >= 0 or { min, max, factor }');
  }
  const { min, max, factor = 2, step = (min as number) / 10 } = value as AdaptiveInterval;
  const fail = (name: string, expected: string): never => {
    throw new TypeError(`Expected \`interval.${name}\` to be a finite number ${expected}`);
  };
  if (!finite(min, 0) || min === 0) fail('min', '> 0');
  if (!finite(max, min)) fail('max', '>= `interval.min`');
  if (!finite(factor, 1)) fail('factor', '>= 1');
  if (!finite(step, 0)) fail('step', '>= 0');
  return { min, max, factor, step };
}
