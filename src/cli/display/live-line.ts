import { formatElapsed, plural } from '../format.js';
import { sanitize } from '../sanitize.js';
import { paintAnswer, type Answer, type Colors, type Display, type OutputStream, type Snapshot } from './display.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;
const CLEAR = '\r\x1b[2K';

/** The wait an answer announces, as the tracker words it: `retry in 3.1 s`, `next request in 2.0 s`. */
const WAIT = /\bin (\d+(?:\.\d+)?) s\b/;

/**
 * The answer's text at `elapsedMs`: a wait it announces counts down from when the answer came
 * (`retry in 3.1 s`, a second later `retry in 2.1 s`), and stays at `0.0 s` once it is due.
 */
export function countDown(text: string, announcedAt: number, elapsedMs: number): string {
  const wait = WAIT.exec(text);
  if (!wait) return text;
  const left = Math.max(0, Number(wait[1]) * 1000 - (elapsedMs - announcedAt));
  return text.replace(WAIT, `in ${(left / 1000).toFixed(1)} s`);
}

/**
 * One status line rewritten in place on a terminal: spinner, elapsed time,
 * requests and the last answer, whose announced wait counts down at each
 * tick ({@link countDown}). Verbose lines are printed above it. Every
 * text goes through {@link sanitize}: the only escapes written are its own. The
 * spinner's timer is unref'd, so it never keeps the process alive.
 */
export function liveLine(stream: OutputStream, colors: Colors, snapshot: () => Snapshot): Display {
  let frame = 0;
  let answer: Answer = { text: 'starting', tone: 'unchanged' };
  let answeredAt = 0;
  let stopped = false;

  const render = (): void => {
    const { elapsedMs, requests } = snapshot();
    const plain = `${FRAMES[frame % FRAMES.length]} ${formatElapsed(elapsedMs)} · ${plural(requests, 'request')} · `;
    const room = Math.max(10, (stream.columns || 80) - 1 - plain.length);
    const full = countDown(answer.text, answeredAt, elapsedMs);
    const text = full.length > room ? `${full.slice(0, room - 1)}…` : full;
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
      answeredAt = snapshot().elapsedMs;
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
