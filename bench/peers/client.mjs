// One library's fleet, in its own process so that no library's CPU use delays
// another's timers: `node client.mjs <library> <base url> <clients> <end ms>`.
// Says 'ready' once loaded, starts on 'go' (with the scenario's origin, epoch
// ms), and reports over IPC when each client saw "done" (epoch ms) and the
// event-loop delay it suffered (a check on the numbers).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { LIBRARIES } from './libraries.mjs';

const [id, base, clients, end] = process.argv.slice(2);
const go = new Promise((resolve) => process.once('message', (m) => resolve(m)));
process.send({ type: 'ready' });
const { origin } = await go;
const start = LIBRARIES[id];
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
const controller = new AbortController();
setMaxListeners(0, controller.signal);
const epoch = () => performance.timeOrigin + performance.now();
const stop = setTimeout(() => controller.abort(), Number(origin) + Number(end) - epoch());
const seen = [];
await Promise.all(
  Array.from({ length: Number(clients) }, (_, client) =>
    Promise.resolve()
      .then(() => start(`${base}/${id}/${client}`, controller.signal))
      .then(
        (done) => done && !controller.signal.aborted && seen.push(epoch()),
        () => undefined,
      ),
  ),
);
clearTimeout(stop);
controller.abort();
lag.disable();
process.send({ type: 'seen', seen, lagP99: lag.percentile(99) / 1e6 }, () => process.exit(0));
