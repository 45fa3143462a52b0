// Minified + gzipped size of each library's minimal polling usage next to
// pollite's entry points, bundled with esbuild as a browser app would be
// (got runs on Node only and is bundled for Node).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const distDir = process.env.POLLITE_DIST ? dirname(fileURLToPath(process.env.POLLITE_DIST)) : join(root, 'dist');
const dist = (path) => JSON.stringify(join(distDir, path));

const CASES = [
  ["import { poll } from 'pollite'", `import { poll } from ${dist('index.js')}; globalThis.x = poll;`],
  ["import * from 'pollite'", `import * as p from ${dist('index.js')}; globalThis.x = p;`],
  ["import { retry } from 'pollite'", `import { retry } from ${dist('index.js')}; globalThis.x = retry;`],
  ["import * from 'pollite/react'", `import * as p from ${dist('react/index.js')}; globalThis.x = p;`],
  ["import * from 'pollite/tanstack'", `import * as p from ${dist('tanstack/index.js')}; globalThis.x = p;`],
  ["import * from 'pollite/server'", `import * as p from ${dist('server/index.js')}; globalThis.x = p;`, 'node'],
  ['naive setInterval + fetch', 'globalThis.x = () => setInterval(async () => console.log(await (await fetch("/job")).json()), 1000);'],
  ['ky', "import ky from 'ky'; globalThis.x = ky;"],
  ['p-retry', "import pRetry from 'p-retry'; globalThis.x = pRetry;"],
  ['axios + axios-retry', "import axios from 'axios'; import axiosRetry from 'axios-retry'; axiosRetry(axios); globalThis.x = axios;"],
  ['@tanstack/query-core QueryClient + QueryObserver', "import { QueryClient, QueryObserver } from '@tanstack/query-core'; globalThis.x = [QueryClient, QueryObserver];"],
  ['got (Node only)', "import got from 'got'; globalThis.x = got;", 'node'],
];

export async function bundleSizes() {
  const sizes = [];
  for (const [label, code, platform = 'browser'] of CASES) {
    try {
      const result = await build({
        stdin: { contents: code, resolveDir: root, loader: 'js' },
        bundle: true,
        minify: true,
        format: 'esm',
        platform,
        write: false,
        logLevel: 'silent',
        // Peers of the adapters, not part of their size.
        external: ['react', 'react-dom', '@tanstack/query-core', 'node:*'].filter((name) => !code.includes(`from '${name}'`)),
      });
      sizes.push({ label, bytes: gzipSync(result.outputFiles[0].contents, { level: 9 }).length });
    } catch (error) {
      sizes.push({ label, bytes: null, error: String(error.message).split('\n')[0] });
    }
  }
  return sizes;
}
