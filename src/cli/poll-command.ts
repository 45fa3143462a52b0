import { fullJitter, isHttpError, isParseError, isPollGaveUpError, isTimeoutError, poll, type Clock, type HttpError } from '../index.js';
import { BodyTooLargeError, bodyReader, type ReceivedBody } from './body-reader.js';
import type { CliIo } from './cli-io.js';
import { commandDeadline } from './command-deadline.js';
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
import { redactCredentials, redactUrl } from './redact-credentials.js';
import { sanitize } from './sanitize.js';
import { serverSays } from './server-says.js';

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

  // --timeout is the command's own deadline, not poll's: poll refuses at once a wait
  // that would end past its deadline, which would make `--timeout 1m` give up half a
  // minute early while a service is still coming up. Here a backoff that would pass
  // the last try (shortly before the deadline, so it can be answered) is shortened to
  // end there; after the last try the command waits out the deadline and exits 124.
  const deadline = command.timeout === undefined ? undefined : now() + command.timeout;
  const lastTry = deadline === undefined ? 0 : deadline - Math.min(1000, command.timeout! / 10);
  let finalTry = false;
  const run = commandDeadline(io.signal, command.timeout, clock);
  const backoff = fullJitter({ base: 2000, cap: 30_000, ...(clock ? { random: () => clock.random() } : {}) });

  let code: number;
  let body: ReceivedBody | undefined;
  let failure: unknown;
  try {
    body = await poll<ReceivedBody>(command.url, {
      interval: command.interval,
      ...(deadline === undefined
        ? {}
        : {
            backoff: (attempt: number) => {
              const drawn = backoff(attempt);
              const room = lastTry - now() - command.interval;
              if (room >= 0) return Math.min(drawn, room);
              // Past the last try's time, one try still fits before the deadline, once.
              if (!finalTry && now() + command.interval < deadline) {
                finalTry = true;
                return 0;
              }
              return drawn + Math.max(0, deadline - now());
            },
          }),
      requestTimeout: command.requestTimeout,
      retries: command.retries ?? (command.timeout === undefined ? undefined : Number.MAX_SAFE_INTEGER),
      conditional: command.etag,
      init: { headers: command.headers },
      signal: run.signal,
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
  } finally {
    run.release();
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
    return `timed out: --timeout ${formatDelay(command.timeout)} passed (or the next try would end after it), after ${elapsed}`;
  }
  if (isHttpError(error)) return httpErrorText(error);
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
