// npm run playground: build the page, serve it and the demo job API on 127.0.0.1, print the URL.
import { buildPlayground, DEFAULT_OUT_DIR } from './build.js';
import { startPlayground } from './server.js';

const port = process.env.PORT ? Number(process.env.PORT) : 5173;
await buildPlayground(DEFAULT_OUT_DIR);
const taken = (error: unknown): boolean => (error as { code?: string }).code === 'EADDRINUSE';
// The preferred port, or any free one when it is taken (another playground, another dev server);
// a PORT given explicitly is used or reported, never silently replaced.
const playground = await startPlayground(DEFAULT_OUT_DIR, { port }).catch((error: unknown) => {
  if (!taken(error)) throw error;
  if (process.env.PORT) {
    console.error(`pollite playground: port ${port} is taken; set PORT to a free one`);
    process.exit(1);
  }
  console.log(`port ${port} is taken; using a free one`);
  return startPlayground(DEFAULT_OUT_DIR, { port: 0 });
});
console.log(`pollite playground: ${playground.url}  (demo API ${playground.demo.url}; Ctrl+C to stop)`);
const stop = (): void => {
  void playground.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
