import { formatElapsed } from '../format.js';
import { sanitize } from '../sanitize.js';
import type { Display, OutputStream, Snapshot } from './display.js';

/**
 * For logs and pipes: one plain line per change of state, stamped with the
 * elapsed time, and no control characters at all (every text goes through
 * {@link sanitize}, whoever wrote it).
 */
export function plainLines(stream: OutputStream, snapshot: () => Snapshot): Display {
  let last: string | undefined;
  let stopped = false;
  const stamp = (): string => `[${formatElapsed(snapshot().elapsedMs).padStart(6)}]`;
  return {
    answer(answer) {
      const text = sanitize(answer.text);
      if (stopped || text === last) return;
      last = text;
      stream.write(`${stamp()} ${text}\n`);
    },
    log(line) {
      if (!stopped) stream.write(`${stamp()} ${sanitize(line)}\n`);
    },
    stop() {
      stopped = true;
    },
  };
}
