// npm run playground: build the page, serve it and the demo job API on 127.0.0.1, print the URL.
import { buildPlayground, DEFAULT_OUT_DIR } from './build.js';
import { startPlayground } from './server.js';

const port = process.env.PORT ? Number(process.env.PORT) : 5173;
await buildPlayground(DEFAULT_OUT_DIR);
const playground = await startPlayground(DEFAULT_OUT_DIR, { port });
console.log(`pollite playground: ${playground.url}  (demo API ${playground.demo.url}; Ctrl+C to stop)`);
const stop = (): void => {
  void playground.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
