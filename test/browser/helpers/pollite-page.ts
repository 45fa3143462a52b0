import type { ServerResponse } from 'node:http';
import { build } from 'esbuild';

/** A page that loads pollite's browser bundle from `/pollite.js` as `window.pollite`. */
const PAGE = '<!doctype html><title>pollite</title><script type="module">import * as p from "/pollite.js"; window.pollite = p;</script>';

let bundled: Promise<string> | undefined;

/** pollite's core entry (src/index.ts) bundled by esbuild for the browser, as ESM; built once per test file. */
export function polliteBundle(): Promise<string> {
  bundled ??= build({ entryPoints: ['src/index.ts'], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' }).then(
    (result) => result.outputFiles[0]!.text,
  );
  return bundled;
}

/**
 * Answers `path` when it is the page (`/`) or the bundle (`/pollite.js`),
 * and says whether it did, so a test server can serve the rest itself.
 */
export function servePollitePage(path: string, res: ServerResponse, code: string): boolean {
  if (path !== '/' && path !== '/pollite.js') return false;
  res.writeHead(200, { 'content-type': path === '/' ? 'text/html' : 'text/javascript' });
  res.end(path === '/' ? PAGE : code);
  return true;
}
