import pc from 'picocolors';
import type { Colors, OutputStream } from './display.js';

/**
 * Colours only for a terminal, and never when `NO_COLOR` is set
 * (no-color.org), `TERM=dumb`, or `--no-color` was given. Decided here rather
 * than by picocolors' own detection, which also turns colours on in CI logs.
 */
export function colorsFor(stream: OutputStream, env: Readonly<Record<string, string | undefined>>, wanted: boolean): Colors {
  const enabled = wanted && stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
  return pc.createColors(enabled);
}
