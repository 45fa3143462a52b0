// The entry of a simulator worker thread (see thread-shard.ts): one shard
// of a fleet, driven by the messages of the thread that runs the server.
import { parentPort, workerData } from 'node:worker_threads';
import { normalizeOptions } from './normalize-options.js';
import { FleetShard } from './shard.js';
import { STRATEGIES } from './strategies.js';
import type { ShardCall, ShardReply, ShardSpec } from './thread-shard.js';

const spec = workerData as ShardSpec;
if (!Object.hasOwn(STRATEGIES, spec.strategy)) throw new TypeError(`A simulator worker was asked for strategy ${JSON.stringify(spec.strategy)}, which it does not know`);
const shard = new FleetShard(STRATEGIES[spec.strategy]!, normalizeOptions(spec.options), spec.from, spec.to);
const port = parentPort!;

const send = (reply: ShardReply): void => {
  try {
    port.postMessage(reply);
  } catch {
    // An error that cannot be copied to the other thread is sent as its text.
    port.postMessage({ error: new Error(String((reply as { error?: unknown }).error)) });
  }
};

// One call at a time, in the order they came: the next window may be asked for while this one runs.
let last: Promise<void> = Promise.resolve();
port.on('message', (message: ShardCall) => {
  last = last
    .then((): unknown => (message.type === 'advance' ? shard.advance(message.until, message.answers) : shard.report()))
    .then(
      (value) => send({ value }),
      (error: unknown) => send({ error }),
    );
});
