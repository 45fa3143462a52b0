// `npm start`: polls a job on a local demo API to completion, politely.
import { poll } from '../dist/index.js';
import { startDemoServer } from '../dist/demo/node-server.js';

const server = await startDemoServer();
const job = server.api.createJob({
  duration: 4000,
  misbehaviour: [{ from: 1500, to: 2200, kind: 'outage', retryAfter: 1 }],
});
const url = `${server.url}/jobs/${job.id}`;
console.log(`pollite: polling ${url}`);

const result = await poll(url, {
  interval: 500,
  isDone: (j) => j.status === 'done' || j.status === 'failed',
  onEvent: (event) => {
    if (event.type === 'response') process.stdout.write(`  ${event.status}`);
    if (event.type === 'wait') console.log(`  -> next poll in ${event.delay} ms`);
    if (event.type === 'retry') {
      const why = event.retryAfter === null ? 'backoff' : 'Retry-After';
      console.log(`  -> retry in ${(event.delay / 1000).toFixed(1)} s (${why})`);
    }
  },
  onUpdate: (j) => process.stdout.write(` ${j.status} ${j.progress}%`),
});
console.log(`\njob ${result.id} finished: ${result.status}`);
console.log('server saw', server.api.stats(job.id));
await server.close();
