import { Command } from 'commander';
import { outageWindow, ROUGH_PATCH, startDemoServer, type JobScript } from '../../demo/index.js';
import type { CliIo } from '../cli-io.js';
import { colorsFor } from '../display/colors.js';
import { parseCondition } from '../condition.js';
import { EXIT } from '../exit-codes.js';
import { runPollCommand } from '../poll-command.js';
import { parseProgram } from '../parse-program.js';
import type { Clock } from '../../index.js';
import { demoTime, type DemoOptions } from './demo-clock.js';
import { demoTable } from './demo-table.js';
import { naivePoller } from './naive-poller.js';
import { requestLog } from './request-log.js';

const INTERVAL = 500;
/** How long the naive poller may lag behind before the demo stops waiting for it. */
const NAIVE_GRACE = 10_000;

/**
 * `pollite demo` (and `npm start`): two identical jobs on the embedded demo
 * API go through the same rough patch; pollite follows one with the live
 * display, a `setInterval` + `fetch` poller the other at the same interval;
 * then a table compares what each did to the server.
 */
export async function runDemo(argv: readonly string[], io: CliIo, demo: DemoOptions = {}): Promise<number> {
  const options = parseDemoArguments(argv, io);
  if (!options) return EXIT.ok;
  const colors = colorsFor(io.stdout, io.env, options.color);
  const { clock, wire, delay, drive } = demoTime(demo);
  const server = await startDemoServer({ now: clock.now, delay });
  const stopClock = drive();
  try {
    const script = ROUGH_PATCH;
    const [politeJob, naiveJob] = [server.api.createJob(clone(script)), server.api.createJob(clone(script))];
    const politeUrl = `${server.url}/jobs/${politeJob.id}`;
    const politeLog = requestLog({ jobStart: politeJob.createdAt, outage: outageWindow(script), now: clock.now, wire });
    const naiveLog = requestLog({ jobStart: naiveJob.createdAt, outage: outageWindow(script), now: clock.now, wire });

    io.stdout.write(
      `${colors.bold('pollite demo')}: two identical ${script.duration / 1000} s jobs on a local demo API (${server.url}),\n` +
        `each through the same rough patch: ${describePatch(script.misbehaviour)}.\n` +
        `pollite follows job ${politeJob.id} (below); a setInterval + fetch poller follows job ${naiveJob.id}; both every ${INTERVAL} ms.\n\n`,
    );

    let naiveDone!: () => void;
    const naiveFinished = new Promise<void>((resolve) => (naiveDone = resolve));
    const naive = naivePoller(`${server.url}/jobs/${naiveJob.id}`, {
      interval: INTERVAL,
      fetch: naiveLog.fetch(globalThis.fetch),
      clock,
      onDone: () => {
        naiveLog.sawFinish();
        naiveDone();
      },
    });
    let code: number;
    try {
      code = await runPollCommand(
        {
          url: politeUrl,
          until: [parseCondition('status=done')],
          failWhen: [parseCondition('status=failed')],
          interval: INTERVAL,
          timeout: script.duration * 4,
          headers: new Headers(),
          etag: true,
          json: false,
          quiet: false,
          verbose: false,
          color: options.color,
        },
        io,
        { fetch: politeLog.fetch(globalThis.fetch), clock },
      );
      if (code === EXIT.ok) {
        politeLog.sawFinish();
        await untilFirst(naiveFinished, NAIVE_GRACE, io.signal, clock);
      }
    } finally {
      naive.stop();
    }
    if (io.signal.aborted) return code === EXIT.ok ? EXIT.interrupted : code;
    await Promise.all([politeLog.settled(), naiveLog.settled()]);

    io.stdout.write(`\n${demoTable(politeLog.report, naiveLog.report, ['pollite', 'setInterval + fetch'])}\n`);
    const saved = naiveLog.report.requests - politeLog.report.requests;
    if (saved > 0) {
      const share = Math.round((saved / naiveLog.report.requests) * 100);
      const obeyed = politeLog.report.ignoredRetryAfter === 0 ? ', and never one while told to wait' : '';
      io.stdout.write(`\npollite sent ${colors.green(`${saved} fewer requests (${share}% fewer)`)} for the same job${obeyed}.\n`);
    }
    return code;
  } finally {
    await stopClock();
    await server.close();
  }
}

function parseDemoArguments(argv: readonly string[], io: Pick<CliIo, 'stdout' | 'stderr'>): { color: boolean } | undefined {
  const program = new Command('pollite demo')
    .description('Poll a job through a scripted rough patch with pollite and with a naive setInterval + fetch poller, then compare.')
    .option('--no-color', 'no colours (NO_COLOR is respected as well)');
  if (!parseProgram(program, argv, io)) return undefined;
  return { color: program.opts<{ color: boolean }>().color };
}

const describePatch = (phases: JobScript['misbehaviour'] & object): string => {
  const span = (m: { from: number; to: number }): string => `${(m.from / 1000).toFixed(1)}-${(m.to / 1000).toFixed(1)} s`;
  const names = { slow: 'slow answers', outage: '503 + Retry-After', 'rate-limit': 'a 429', errors: '500s' } as const;
  return `${phases.map((m) => `${names[m.kind]} ${span(m)}`).join(', ')}, unchanged data between 20% steps`;
};

/** Resolves when `promise` does, after `ms`, or when `signal` aborts, whichever comes first. */
function untilFirst(promise: Promise<void>, ms: number, signal: AbortSignal, clock: Clock): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = clock.setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
    void promise.then(finish);
    function finish(): void {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    }
  });
}

/** The job model keeps the script it is given; each twin gets its own copy. */
const clone = (script: JobScript): JobScript => structuredClone(script) as JobScript;
