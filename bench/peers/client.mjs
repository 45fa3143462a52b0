// One library's fleet, in its own process so that no library's CPU use delays
// another's timers: `node client.mjs <library>`. Says 'ready' once loaded,
// starts on 'go' ({ origin: epoch ms, urls: one per client, end: ms after
// origin, stagger: ms between client starts }), and reports over IPC how each
// client ended ('done', 'threw' or 'ended': still polling at the end) and
// the event-loop delay it suffered (a check on the numbers).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { LIBRARIES, PREPARE } from './libraries.mjs';

const [id] = process.argv.slice(2);
await PREPARE[id]?.();
const go = new Promise((resolve) => process.once('message', (m) => resolve(m)));
process.send({ type: 'ready' });
const { origin, urls, end, stagger } = await go;
const start = LIBRARIES[id];
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
const controller = new AbortController();
setMaxListeners(0, controller.signal);
const epoch = () => performance.timeOrigin + performance.now();
const at = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, origin + ms - epoch())));
const stop = setTimeout(() => controller.abort(), origin + end - epoch());
const outcomes = await Promise.all(
  urls.map((url, client) =>
    // Spread over the first interval, as a fleet that did not all start at one instant.
    at(client * stagger)
      .then(() => start(url, controller.signal))
      .then(
        (done) => (done && !controller.signal.aborted ? 'done' : 'ended'),
        () => (controller.signal.aborted ? 'ended' : 'threw'),
      ),
  ),
);
clearTimeout(stop);
controller.abort();
lag.disable();
process.send({ type: 'outcomes', outcomes, lagP99: lag.percentile(99) / 1e6 }, () => process.exit(0));
