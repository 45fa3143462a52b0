// The `pollite` executable (bundled to dist/cli.js): wires the process to `main`.
import { setFlagsFromString } from 'node:v8';
import { EXIT, Interrupted } from './exit-codes.js';
import { main } from './main.js';

// fetch parses HTTP with a WebAssembly module that V8 later recompiles with
// TurboFan on a background thread; process.exit waits for that compile,
// which delayed Ctrl-C by up to 2 s on a busy machine (measured with strace).
// The baseline compiler is plenty for a few requests a second.
setFlagsFromString('--liftoff-only');

const controller = new AbortController();
const onSignal = (name: 'SIGINT' | 'SIGTERM'): void => {
  // A second Ctrl-C while shutting down means "now".
  if (controller.signal.aborted) process.exit(new Interrupted(name).exitCode);
  controller.abort(new Interrupted(name));
};
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));
// A closed pipe (`pollite ... | head -1`) is not an error worth a stack trace.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

const flush = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));

let code: number;
try {
  code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal });
} catch (error) {
  process.stderr.write(`pollite: unexpected error (a bug in pollite, please report it)\n${(error as Error)?.stack ?? String(error)}\n`);
  code = EXIT.software;
}
await Promise.all([flush(process.stdout), flush(process.stderr)]);
// Exit now rather than wait for idle keep-alive sockets and timers to drain.
process.exit(code);
