import { formatElapsed, plural } from '../format.js';
import { sanitize } from '../sanitize.js';
import { paintAnswer, type Answer, type Colors, type Display, type OutputStream, type Snapshot } from './display.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;
const CLEAR = '\r\x1b[2K';

/**
 * One status line rewritten in place on a terminal: spinner, elapsed time,
 * requests and the last answer. Verbose lines are printed above it. Every
 * text goes through {@link sanitize}: the only escapes written are its own. The
 * spinner's timer is unref'd, so it never keeps the process alive.
 */
export function liveLine(stream: OutputStream, colors: Colors, snapshot: () => Snapshot): Display {
  let frame = 0;
  let answer: Answer = { text: 'starting', tone: 'unchanged' };
  let stopped = false;

  const render = (): void => {
    const { elapsedMs, requests } = snapshot();
    const plain = `${FRAMES[frame % FRAMES.length]} ${formatElapsed(elapsedMs)} · ${plural(requests, 'request')} · `;
    const room = Math.max(10, (stream.columns || 80) - 1 - plain.length);
    const text = answer.text.length > room ? `${answer.text.slice(0, room - 1)}…` : answer.text;
    stream.write(`${CLEAR}${colors.cyan(plain.slice(0, 1))}${colors.dim(plain.slice(1))}${paintAnswer(colors, { ...answer, text })}`);
  };
  const timer = setInterval(() => {
    frame += 1;
    render();
  }, TICK_MS);
  timer.unref();
  render();

  return {
    answer(next) {
      if (stopped) return;
      answer = { ...next, text: sanitize(next.text) };
      render();
    },
    log(line) {
      if (stopped) return;
      stream.write(`${CLEAR}${colors.dim(sanitize(line))}\n`);
      render();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write(CLEAR);
    },
  };
}
