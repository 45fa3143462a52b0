import type { CliIo } from './cli-io.js';
import { runDemo } from './demo/run-demo.js';
import { EXIT, Interrupted } from './exit-codes.js';
import { runPollCommand } from './poll-command.js';
import { parsePollArguments } from './poll-program.js';
import { redactCredentials } from './redact-credentials.js';
import { sanitize } from './sanitize.js';
import { UsageError } from './usage-error.js';

/**
 * `pollite` from argv to exit code: `pollite demo`, `pollite simulate ...`,
 * or `pollite <url> [options]`. Usage errors print one line and a hint and
 * return 64 before anything is sent.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    if (argv[0] === 'demo') return await runDemo(argv.slice(1), io);
    if (argv[0] === 'simulate') return await runSimulate(argv.slice(1), io);
    const command = await parsePollArguments(argv, io);
    return command ? await runPollCommand(command, io) : EXIT.ok;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const help = argv[0] === 'demo' ? 'pollite demo --help' : 'pollite --help';
    // A usage error may echo an argument: never its credentials, nor its control characters.
    io.stderr.write(`pollite: ${sanitize(redactCredentials(error.message), 1000)}\nRun '${help}' for usage.\n`);
    return EXIT.usage;
  }
}

/**
 * `pollite simulate` (src/cli/simulate/, bundled to dist/cli/simulate.js
 * over `pollite/simulator`) is loaded only when asked for, so the rest of
 * the CLI starts without the simulator. The path is relative to the bundle,
 * dist/cli.js.
 */
async function runSimulate(argv: readonly string[], io: CliIo): Promise<number> {
  type Simulator = {
    simulateCommand(argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number>;
  };
  let simulator: Simulator;
  try {
    simulator = (await import(new URL('./cli/simulate.js', import.meta.url).href)) as Simulator;
    if (typeof simulator.simulateCommand !== 'function') throw new Error('it has no simulateCommand');
  } catch (error) {
    io.stderr.write(`pollite: 'simulate' is not available in this build (${(error as Error).message.split('\n')[0]})\n`);
    return EXIT.usage;
  }
  // The simulator takes no signal: Ctrl-C ends it at once, with the usual code.
  io.signal.addEventListener('abort', () => process.exit((io.signal.reason as Interrupted).exitCode), { once: true });
  return simulator.simulateCommand([...argv], {
    stdout: io.stdout as NodeJS.WritableStream,
    stderr: io.stderr as NodeJS.WritableStream,
  });
}
