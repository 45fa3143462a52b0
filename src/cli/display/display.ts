import type pc from 'picocolors';

/** picocolors' functions, enabled or not. */
export type Colors = ReturnType<typeof pc.createColors>;

/** The latest answer, as the status line shows it. */
export interface Answer {
  text: string;
  tone: 'ok' | 'unchanged' | 'retry' | 'error';
}

/** What every display shows besides the answer. */
export interface Snapshot {
  elapsedMs: number;
  requests: number;
}

/** Where progress goes: a live line on a terminal, plain lines elsewhere, or nowhere (`--quiet`). */
export interface Display {
  /** A new state to show. */
  answer(answer: Answer): void;
  /** A line that stays (verbose output). */
  log(line: string): void;
  /** Removes anything transient; the display writes nothing afterwards. */
  stop(): void;
}

/** A stream the CLI writes to; `isTTY` and `columns` exist on terminals. */
export interface OutputStream {
  write(chunk: string | Uint8Array): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Colours an answer by its tone. */
export const paintAnswer = (colors: Colors, answer: Answer): string => {
  switch (answer.tone) {
    case 'ok':
      return colors.green(answer.text);
    case 'unchanged':
      return colors.cyan(answer.text);
    case 'retry':
      return colors.yellow(answer.text);
    case 'error':
      return colors.red(answer.text);
  }
};

/** A display that shows nothing (`--quiet`). */
export const silentDisplay: Display = { answer: () => undefined, log: () => undefined, stop: () => undefined };
