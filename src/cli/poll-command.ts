import { isHttpError, isParseError, isPollGaveUpError, isTimeoutError, poll, type Clock, type HttpError } from '../index.js';
import { redactUrl } from '../kit/index.js';
import { checkpoint, isCheckpointRefusedError } from '../resume/index.js';
import { BodyTooLargeError, bodyReader, type ReceivedBody } from './body-reader.js';
import type { CliIo } from './cli-io.js';
import { colorsFor } from './display/colors.js';
import { silentDisplay, type Display, type OutputStream } from './display/display.js';
import { liveLine } from './display/live-line.js';
import { plainLines } from './display/plain-lines.js';
import { matchCondition, type Condition } from './condition.js';
import { EXIT, exitCodeFor, isFetchFailure } from './exit-codes.js';
import { formatBytes, formatDelay, formatElapsed, plural } from './format.js';
import { redactedHeaderLines } from './headers.js';
import { instrumentedFetch, networkErrorText } from './instrumented-fetch.js';
import { writeBody } from './json-output.js';
import { pollTracker, type PollCounters } from './poll-tracker.js';
import { redactCredentials } from './redact-credentials.js';
import { sanitize } from './sanitize.js';
import { serverSays } from './server-says.js';
import { fileAt } from '../resume/node.js';

/** `pollite <url>` after its arguments were parsed and checked. */
export interface PollCommand {
  url: string;
  until: readonly Condition[];
  failWhen: readonly Condition[];
  interval: number;
  timeout?: number | undefined;
  requestTimeout?: number | undefined;
  /** Failures in a row that are tried again. Given explicitly; otherwise poll's default (8), or unlimited under `timeout`. */
  retries?: number | undefined;
  /** `--state`: the file that keeps the poll's checkpoint, so that a run stopped continues in the next. */
  state?: string | undefined;
  headers: Headers;
  etag: boolean;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
}

/** What the demo needs besides the command: its own fetch, to measure what is sent, and its own clock. */
export interface PollCommandHooks {
  fetch?: typeof fetch;
  /**
   * Time, timers and randomness of the command: its elapsed times, its
   * `--timeout`, and poll's waits and jitter (a virtual clock runs the demo
   * in its tests). The display's repaint timer stays real.
   * @default the wall clock and Math.random
   */
  clock?: Clock;
}

/**
 * Polls `command.url` with the core `poll` until an `--until` condition (or,
 * without one, any 2xx) or a `--fail-when` condition matches, showing
 * progress and returning the exit code.
 */
export async function runPollCommand(command: PollCommand, io: CliIo, hooks: PollCommandHooks = {}): Promise<number> {
  // --json keeps stdout for the body alone; progress then goes to stderr.
  const out: OutputStream = command.json ? io.stderr : io.stdout;
  const colors = colorsFor(out, io.env, command.color);
  const errorColors = colorsFor(io.stderr, io.env, command.color);
  const clock = hooks.clock;
  const now = clock ? (): number => clock.now() : (): number => Date.now();
  const conditions = [...command.until, ...command.failWhen];
  const tracker = pollTracker({
    paths: conditions.map((condition) => condition.path),
    verbose: command.verbose && !command.quiet,
    now,
  });
  const display: Display = command.quiet
    ? silentDisplay
    : out.isTTY
      ? liveLine(out, colors, tracker.snapshot)
      : plainLines(out, tracker.snapshot);
  tracker.show(display);
  if (command.verbose && !command.quiet) {
    display.log(`> GET ${redactUrl(command.url)}`);
    for (const line of redactedHeaderLines(command.headers)) display.log(`> ${line}`);
  }

  const countBytes = (bytes: number): void => {
    tracker.counters.bytes += bytes;
  };
  const http = instrumentedFetch(hooks.fetch ?? globalThis.fetch, { onBytes: countBytes, onNetworkError: tracker.onNetworkError });
  const failed = (body: unknown): boolean => command.failWhen.some((condition) => matchCondition(condition, body));
  const succeeded = (body: unknown): boolean =>
    command.until.length === 0 || command.until.some((condition) => matchCondition(condition, body));

  // --timeout is poll's own deadline, which is met, not guessed: a wait that would cross it is
  // shortened for one last try, and the TimeoutError comes when it passes, not before.
  let code: number;
  let body: ReceivedBody | undefined;
  let failure: unknown;
  try {
    body = await poll<ReceivedBody>(command.url, {
      interval: command.interval,
      timeout: command.timeout,
      requestTimeout: command.requestTimeout,
      retries: command.retries ?? (command.timeout === undefined ? undefined : Number.MAX_SAFE_INTEGER),
      conditional: command.etag,
      // The URL is the key: a state file written for another URL is refused, not polled.
      ...(command.state !== undefined && { use: [checkpoint({ store: fileAt(command.state), key: 'pollite-cli' })] }),
      init: { headers: command.headers },
      signal: io.signal,
      fetch: http.fetch,
      ...(clock
        ? {
            env: {
              now: () => clock.now(),
              setTimeout: (callback: () => void, ms: number) => clock.setTimeout(callback, ms),
              clearTimeout: (handle: unknown) => clock.clearTimeout(handle),
              random: () => clock.random(),
            },
          }
        : {}),
      // Without conditions any 2xx will do, so a plain-text health check works too.
      parse: bodyReader({ requireJson: conditions.length > 0, onBytes: countBytes }),
      isDone: ({ value }) => failed(value) || succeeded(value),
      onUpdate: ({ value }) => tracker.onBody(value),
      onEvent: tracker.onEvent,
    });
    code = failed(body.value) ? EXIT.failed : EXIT.ok;
  } catch (error) {
    code = exitCodeFor(error);
    failure = error;
  }
  display.stop();

  const elapsed = formatElapsed(tracker.snapshot().elapsedMs);
  if (failure !== undefined) {
    io.stderr.write(`${errorColors.red('pollite:')} ${errorMessage(failure, command, elapsed)}\n`);
    // What a status that is not retried came with: a problem's title and detail, or a text body's first line.
    const says = isHttpError(failure) ? serverSays(http.excerptOf(failure.response) ?? new Uint8Array(0), failure.response.headers.get('content-type')) : undefined;
    if (says !== undefined) io.stderr.write(`${errorColors.red('pollite:')} the server says: ${says}\n`);
  }
  if (body !== undefined && (code === EXIT.ok || code === EXIT.failed)) {
    const { value } = body;
    const matched = (code === EXIT.failed ? command.failWhen : command.until).find((condition) => matchCondition(condition, value));
    if (command.json) {
      writeBody(io.stdout, body.bytes);
    } else if (!command.quiet) {
      const verdict = code === EXIT.ok ? colors.green('done') : colors.red('failed');
      const why = matched ? ` (${code === EXIT.failed ? '--fail-when ' : ''}${matched.source})` : '';
      io.stdout.write(`${verdict}: ${redactUrl(command.url)}${why} after ${elapsed}\n`);
    }
  }
  if (!command.quiet) io.stderr.write(`${errorColors.dim(summaryLine(tracker.counters, elapsed))}\n`);
  return code;
}

/** The one-line summary on stderr. */
export const summaryLine = (c: PollCounters, elapsed: string): string =>
  `pollite: ${plural(c.requests, 'request')}, ${c.notModified} × 304, ${c.retries} ${c.retries === 1 ? 'retry' : 'retries'}, ${formatBytes(c.bytes)} received in ${elapsed}`;

/** The error line: sanitised (a server wrote parts of it) and with any credentials redacted. */
function errorMessage(error: unknown, command: PollCommand, elapsed: string): string {
  if (isTimeoutError(error) && command.timeout !== undefined) {
    return `timed out: --timeout ${formatDelay(command.timeout)} passed, after ${elapsed}`;
  }
  if (isHttpError(error)) return httpErrorText(error);
  if (isCheckpointRefusedError(error) && command.state !== undefined) {
    return `--state ${sanitize(command.state, 200)} was not resumed (${error.reason}): it holds another poll, or one this pollite cannot read. Nothing was sent; delete the file to start afresh`;
  }
  if (isParseError(error) && error.cause instanceof BodyTooLargeError) {
    return `the HTTP ${error.status} body from ${redactUrl(error.url)} is larger than ${error.cause.limit / 1024 / 1024} MiB, the most pollite reads`;
  }
  if (isPollGaveUpError(error) && error.status === undefined) return sanitize(redactCredentials(`${error.message}: ${networkErrorText(error.cause)}`));
  if (isFetchFailure(error)) return sanitize(redactCredentials(`the request failed, and another try would fail alike: ${networkErrorText(error)}`));
  if (exitCodeFor(error) === EXIT.software) return sanitize(redactCredentials(`unexpected error (a bug in pollite, please report it): ${String(error)}`));
  return sanitize(redactCredentials(error instanceof Error ? error.message : String(error)));
}

/** `HTTP 404 Not Found from <url>`, with the server's reason phrase sanitised and clipped. */
const httpErrorText = (error: HttpError): string => {
  const reason = sanitize(error.response.statusText, 80).trim();
  return `HTTP ${error.status}${reason ? ` ${reason}` : ''} from ${redactUrl(error.url)}`;
};
