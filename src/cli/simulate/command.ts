import { writeFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { parseArgs } from 'node:util';
import { OCC_STRATEGIES, SCENARIO_NAMES, STRATEGIES } from '../../simulator/index.js';
import { UsageError } from '../usage-error.js';
import { sampleHeap, type HeapReport } from './heap-sampler.js';
import { integer, occJob, simulationJob, type Output } from './jobs.js';
import { checkSvgTarget } from './svg-target.js';

const USAGE = `Usage: pollite simulate [options]

Runs fleets of simulated clients (pollite's real poll, in virtual time)
against a modelled server and prints what the server went through.

Options:
  --scenario <name>     ${[...SCENARIO_NAMES, 'aws-occ'].join(' | ')} (default: outage)
  --clients <n>         clients in the fleet (default: 1000); for aws-occ a
                        comma-separated list (default: 10,20,...,190)
  --strategies <list>   comma-separated (default: naive,exponential,pollite)
                        known: ${Object.keys(STRATEGIES).join(', ')}
                        aws-occ: ${OCC_STRATEGIES.join(', ')} (default: all)
  --duration <time>     virtual time, e.g. 300s, 5m, 90000ms (default: 5m)
  --interval <time>     polling interval (default: 2s, poll's default)
  --seed <n>            integer seed; the same seed gives the same numbers (default: 1)
  --runs <n>            aws-occ: runs averaged per point (default: 100)
  --workers <n|auto>    threads to split the fleet over, the same results whatever
                        the number (default: auto, one per core up to 4 from
                        20,000 clients on, else 1)
  --json                print the full result as JSON, with memory: peak and final heap
  --svg <file>          write a chart (requests per second over time, or the study);
                        its directory must exist and be writable
  -h, --help            show this help

Exit codes: 0 done; 64 a usage error (nothing simulated); 73 the results were
printed but the --svg file could not be written.

Examples:
  pollite simulate --clients 10000 --scenario outage --strategies naive,exponential,pollite
  pollite simulate --scenario aws-occ --svg aws.svg
`;

/** EX_CANTCREAT: the results were printed, the chart could not be written. */
const EXIT_CANT_WRITE = 73;

/** Where the command writes. */
export interface SimulateIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * `pollite simulate`: parses `argv`, runs the simulation or the AWS study,
 * and prints a table (or JSON), optionally writing an SVG chart. Returns the
 * exit code: 0; 64 on a usage error (with the message on stderr), before
 * anything runs; 73 if the results were printed but the chart could not be
 * written.
 */
export async function simulateCommand(argv: string[], io: SimulateIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        scenario: { type: 'string' },
        clients: { type: 'string' },
        strategies: { type: 'string' },
        duration: { type: 'string' },
        interval: { type: 'string' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        workers: { type: 'string' },
        json: { type: 'boolean' },
        svg: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
    if (values.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    const scenario = values.scenario ?? 'outage';
    const seed = integer(values.seed, 'seed', 0) ?? 1;
    const job = scenario === 'aws-occ' ? occJob(values, seed) : simulationJob(values, scenario, seed);
    // Before anything runs: a typo in the path must not cost the results of a long run.
    if (values.svg !== undefined) await checkSvgTarget(values.svg);
    // A fleet's allocations look long-lived to V8 while its young generation is small (the first
    // requests all survive a collection), so it tenures them for the rest of the run; measured on
    // 100,000 clients, not doing so takes a tenth to a fifth off the run. Only for this process,
    // which runs nothing else (its flags are the process's, worker threads included).
    setFlagsFromString('--no-allocation-site-pretenuring');
    const started = performance.now();
    const heap = sampleHeap();
    let output: Output;
    let memory: HeapReport;
    try {
      output = await job();
    } finally {
      memory = heap.stop();
    }
    const { text, json, svg } = output;
    const seconds = (performance.now() - started) / 1000;
    // The results first: whatever happens to the chart, they are not lost.
    io.stdout.write(values.json ? `${JSON.stringify({ ...json, memory }, null, 2)}\n` : `${text}\n`);
    // The heap is this thread's; the resident set counts every thread's, worker threads included.
    const rss = (process.resourceUsage().maxRSS * 1024) / 2 ** 20;
    io.stderr.write(`simulated in ${seconds.toFixed(1)} s, heap ${memory.heapMiB.toFixed(0)} MiB, peak heap ${memory.peakHeapMiB.toFixed(0)} MiB, max rss ${rss.toFixed(0)} MiB\n`);
    if (values.svg !== undefined) {
      try {
        await writeFile(values.svg, svg);
      } catch (error) {
        io.stderr.write(`pollite simulate: could not write --svg ${values.svg}: ${String((error as Error).message).split('\n')[0]}\n`);
        return EXIT_CANT_WRITE;
      }
      io.stderr.write(`wrote ${values.svg}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError && /^Expected `/.test(error.message)) && !isParseArgsError(error)) {
      throw error;
    }
    io.stderr.write(`pollite simulate: ${(error as Error).message}\nRun 'pollite simulate --help' for usage.\n`);
    return 64;
  }
}

const isParseArgsError = (error: unknown): boolean =>
  typeof (error as { code?: unknown } | null)?.code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS');
