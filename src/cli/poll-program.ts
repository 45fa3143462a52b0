import { Command, Option } from 'commander';
import { redactUrl } from '../kit/index.js';
import type { CliIo } from './cli-io.js';
import { ConditionSyntaxError, parseCondition, type Condition } from './condition.js';
import { parseDuration } from './duration.js';
import { parseHeaders } from './headers.js';
import { parseProgram } from './parse-program.js';
import type { PollCommand } from './poll-command.js';
import { UsageError } from './usage-error.js';

declare const POLLITE_VERSION: string | undefined;
/** Filled in by the bundler from package.json. */
const VERSION = typeof POLLITE_VERSION === 'string' ? POLLITE_VERSION : '0.0.0-dev';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const HELP_AFTER = `
Conditions (values compare as JSON scalars; quote to force a string: v="3"):
  status=done,failed   job.state!=running   items.0.done=true   progress>=100

Durations: 500ms, 2s, 1m, 1h, 1m30s (a bare number other than 0 is refused)

Exit codes: 0 matched (or, without --until, any 2xx)   1 --fail-when matched
  2 HTTP error that is not retried, or --retries used up   124 --timeout passed
  130 interrupted (Ctrl-C)   64 usage error

Examples:
  pollite http://localhost:3000/health --timeout 1m
  pollite https://ci.example/jobs/42 -u status=done -f status=failed,error -i 5s --json

Also: pollite demo (the polite poller against a naive one), pollite simulate --help`;

/** The parsed options, as commander hands them over. */
interface RawOptions {
  until?: string[];
  failWhen?: string[];
  interval: string;
  timeout?: string;
  requestTimeout?: string;
  retries?: string;
  state?: string;
  header?: string[];
  etag: boolean;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  color: boolean;
}

/**
 * Parses `pollite <url> [options]` with commander. Resolves with the checked
 * command, or with `undefined` when help or the version was printed; rejects
 * with a {@link UsageError} naming the bad argument.
 */
export async function parsePollArguments(argv: readonly string[], io: Pick<CliIo, 'stdout' | 'stderr'>): Promise<PollCommand | undefined> {
  const program = new Command('pollite')
    .usage('<url> [options]')
    .description('Poll a URL politely (one request at a time, backoff, Retry-After, ETag) until its JSON body matches.')
    .argument('<url>', 'http(s) URL to poll')
    .option('-u, --until <cond>', 'succeed when the JSON body matches (repeatable: any of them)', collect)
    .option('-f, --fail-when <cond>', 'stop with exit 1 when it matches (repeatable)', collect)
    .option('-i, --interval <dur>', 'wait between polls', '2s')
    .option('-t, --timeout <dur>', 'total deadline (exit 124)')
    .option('--request-timeout <dur>', 'deadline of each request (a timed-out request is retried)')
    .option('--retries <n>', 'failures in a row that are tried again (default 8; unlimited with --timeout)')
    .option('--state <file>', 'keep the poll in FILE: a run stopped (Ctrl-C, a kill, a CI retry) continues where it was, its wait and --timeout kept; deleted when it ends')
    // The old name is refused by name, on sight (before a missing URL is reported), so nobody keeps it by mistake.
    .addOption(new Option('--max-attempts [n]').hideHelp())
    .on('option:max-attempts', () => {
      throw new UsageError('--max-attempts is now --retries (the same number: failures in a row that are tried again)');
    })
    .option('-H, --header <header>', "request header 'Name: value' (repeatable; values are never printed)", collect)
    .option('--no-etag', 'never send If-None-Match')
    .option('--json', 'print only the final body to stdout (progress goes to stderr)')
    .addOption(new Option('-q, --quiet', 'no progress and no summary').conflicts('verbose'))
    .option('-v, --verbose', 'show every request and response (header values as ***)')
    .option('--no-color', 'no colours (NO_COLOR is respected as well)')
    .version(VERSION, '-V, --version')
    .helpOption('-h, --help', 'show this help')
    .addHelpText('after', HELP_AFTER);
  if (!parseProgram(program, argv, io)) return undefined;
  return toCommand(program.args[0]!, program.opts<RawOptions>());
}

function toCommand(url: string, raw: RawOptions): PollCommand {
  return {
    url: checkUrl(url),
    until: (raw.until ?? []).map(condition),
    failWhen: (raw.failWhen ?? []).map(condition),
    interval: parseDuration(raw.interval, '--interval'),
    timeout: raw.timeout === undefined ? undefined : positiveDuration(raw.timeout, '--timeout'),
    requestTimeout: raw.requestTimeout === undefined ? undefined : positiveDuration(raw.requestTimeout, '--request-timeout'),
    retries: raw.retries === undefined ? undefined : count(raw.retries, '--retries'),
    state: raw.state === undefined || raw.state === '' ? undefined : raw.state,
    headers: parseHeaders(raw.header ?? []),
    etag: raw.etag,
    json: raw.json === true,
    quiet: raw.quiet === true,
    verbose: raw.verbose === true,
    color: raw.color,
  };
}

/** A deadline of 0 would end before anything could be answered: refused, like a missing unit. */
function positiveDuration(text: string, option: string): number {
  const ms = parseDuration(text, option);
  if (ms <= 0) throw new UsageError(`${option} '${text}' must be longer than 0`);
  return ms;
}

function checkUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  if ((url?.protocol === 'http:' || url?.protocol === 'https:') && (url.username || url.password)) {
    // fetch refuses such URLs, and echoing one would print the password.
    throw new UsageError(`the URL carries credentials, which fetch refuses: send them with -H 'Authorization: Basic ...' instead`);
  }
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url.href;
  const guess = /^[\w.-]+(:\d+)?(\/|$)/.test(text) ? `: did you mean http://${redactUrl(text)} ?` : ': give an http:// or https:// URL';
  throw new UsageError(`'${redactUrl(text)}' is not an http(s) URL${guess}`);
}

function condition(text: string): Condition {
  try {
    return parseCondition(text);
  } catch (error) {
    if (error instanceof ConditionSyntaxError) throw new UsageError(error.message);
    throw error;
  }
}

function count(text: string, option: string): number {
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${option} '${text}' must be a whole number >= 0`);
  }
  return Number(text);
}
