// One process of the crash test (./crash.test.ts), bundled and forked by it: polls an operation under a
// checkpoint in a fileStore, reporting its events and its result over IPC. Killed with SIGKILL mid-way, then
// forked again with the same directory, it must go on where the first one stopped.
import { pollOperation } from '../../../src/operation/index.js';
import { checkpoint } from '../../../src/resume/index.js';
import { fileStore } from '../../../src/resume/node.js';

const [start, dir, key] = process.argv.slice(2) as [string, string, string];
const send = (report: object): void => void process.send?.(report);

try {
  const result = await pollOperation(start, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"month":"2025-01"}',
    operation: {
      idempotencyKey: true,
      interval: 100,
      timeout: 60_000,
      resume: checkpoint({ store: fileStore(dir), key }),
      onEvent: (event) => send({ type: 'event', event, at: Date.now() }),
    },
  });
  send({ type: 'settled', outcome: 'resolved', value: result });
} catch (error) {
  send({ type: 'settled', outcome: 'rejected', value: String(error) });
}
process.disconnect?.();
