import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseDuration } from '../cli/duration.js';
import { UsageError } from '../cli/usage-error.js';
import { awsOccStudy, OCC_STRATEGIES, type OccStrategy } from './aws-occ.js';
import { renderChart } from './chart.js';
import { occPanels, occTable, simulationPanel, simulationTable } from './report.js';
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.js';
import { simulate } from './simulate.js';
import { STRATEGIES } from './strategies.js';

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
  --json                print the full result as JSON
  --svg <file>          write a chart (requests per second over time, or the study)
  -h, --help            show this help

Examples:
  pollite simulate --clients 10000 --scenario outage --strategies naive,exponential,pollite
  pollite simulate --scenario aws-occ --svg aws.svg
`;

/** Where the command writes. */
export interface SimulateIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const integer = (value: string | undefined, flag: string, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${flag} expects an integer >= ${min}, got '${value}'`);
  }
  return n;
};

const time = (value: string | undefined, flag: string): number | undefined =>
  value === undefined ? undefined : parseDuration(value, `--${flag}`);

const list = (value: string | undefined): string[] | undefined =>
  value?.split(',').map((item) => item.trim()).filter((item) => item !== '');

/**
 * `pollite simulate`: parses `argv`, runs the simulation or the AWS study,
 * and prints a table (or JSON), optionally writing an SVG chart. Returns the
 * exit code: 0, or 64 on a usage error (with the message on stderr).
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
    const started = performance.now();
    let text: string;
    let json: unknown;
    let svg: string;
    if (scenario === 'aws-occ') {
      const clients = list(values.clients)?.map((n) => integer(n, 'clients', 1)!);
      const strategies = list(values.strategies);
      for (const s of strategies ?? []) {
        if (!OCC_STRATEGIES.includes(s as OccStrategy)) {
          throw new UsageError(`--strategies for aws-occ takes ${OCC_STRATEGIES.join(', ')}; got '${s}'`);
        }
      }
      const runs = integer(values.runs, 'runs', 1) ?? 100;
      const points = awsOccStudy({ clients, runs, seed, strategies: strategies as OccStrategy[] | undefined });
      text = occTable(points, runs);
      json = { scenario, runs, seed, points };
      svg = renderChart(occPanels(points), {
        width: 560,
        notes: [`AWS OCC model, pollite's backoff functions (base 10 ms, cap 2000 ms), mean of ${runs} runs, seed ${seed}`],
      });
    } else {
      if (!SCENARIO_NAMES.includes(scenario as ScenarioName)) {
        throw new UsageError(`--scenario takes ${[...SCENARIO_NAMES, 'aws-occ'].join(', ')}; got '${scenario}'`);
      }
      const strategies = list(values.strategies);
      for (const s of strategies ?? []) {
        if (!(s in STRATEGIES)) throw new UsageError(`--strategies takes ${Object.keys(STRATEGIES).join(', ')}; got '${s}'`);
      }
      if (values.runs !== undefined) throw new UsageError('--runs applies to --scenario aws-occ only');
      const result = await simulate({
        scenario: scenario as ScenarioName,
        clients: integer(values.clients, 'clients', 1),
        strategies,
        duration: time(values.duration, 'duration'),
        interval: time(values.interval, 'interval'),
        seed,
      });
      text = simulationTable(result);
      json = result;
      svg = renderChart([simulationPanel(result)], { width: 900 });
    }
    if (values.svg !== undefined) {
      await writeFile(values.svg, svg);
      io.stderr.write(`wrote ${values.svg}\n`);
    }
    io.stdout.write(values.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    io.stderr.write(`simulated in ${((performance.now() - started) / 1000).toFixed(1)} s, heap ${heap.toFixed(0)} MiB\n`);
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
