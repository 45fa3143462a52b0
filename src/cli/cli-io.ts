import type { OutputStream } from './display/display.js';

/** Everything a command takes from the process, injected so the demo can reuse commands. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted with an `Interrupted` reason on SIGINT or SIGTERM. */
  signal: AbortSignal;
}
