// The worker-thread side of a split fleet, loaded by `simulate` only when
// `workers` is above 1, so the simulator itself needs no Node built-in.
import { Worker } from 'node:worker_threads';
import type { ClientReport } from './metrics.js';
import type { Answers } from './network.js';
import type { WindowReport } from './shard.js';
import type { SimulateOptions } from './simulate-options.js';

/** A shard as the fleet drives it, in this thread or in another. */
export interface Shard {
  advance(until: number, answers: Answers): Promise<WindowReport>;
  report(): Promise<ClientReport>;
  close(): Promise<void>;
}

/** What the coordinator tells a shard's worker. */
export type ShardCall = { type: 'advance'; until: number; answers: Answers } | { type: 'report' };
/** What the worker answers: a value, or the error the call ended in. */
export type ShardReply = { value: unknown } | { error: unknown };

/** What a shard's worker is started with: the clients `from` to `to - 1` of `options`' fleet, polling by `strategy`. */
export interface ShardSpec {
  strategy: string;
  options: SimulateOptions;
  from: number;
  to: number;
}

/** The clients of `spec` in a worker thread of their own (dist/simulator/shard-worker.js). */
export function threadShard(spec: ShardSpec): Shard {
  const worker = new Worker(new URL('./shard-worker.js', import.meta.url), { workerData: spec });
  // Calls are answered in the order they were made: a window may be asked for before the last one is done.
  const waiting: Array<{ resolve: (value: unknown) => void; reject: (error: unknown) => void }> = [];
  let broken: unknown;
  const settle = (reply: ShardReply): void => {
    const call = waiting.shift();
    if ('error' in reply) call?.reject(reply.error);
    else call?.resolve(reply.value);
  };
  const fail = (error: unknown): void => {
    broken ??= error;
    for (const call of waiting.splice(0)) call.reject(broken);
  };
  worker.on('message', settle);
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`A simulator worker stopped (exit code ${code})`)));
  const call = <T>(message: ShardCall): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (broken !== undefined) return reject(broken);
      waiting.push({ resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage(message);
    });
  return {
    advance: (until, answers) => call<WindowReport>({ type: 'advance', until, answers }),
    report: () => call<ClientReport>({ type: 'report' }),
    close: async () => {
      broken ??= new Error('The simulator worker was closed');
      await worker.terminate();
    },
  };
}
