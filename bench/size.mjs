// `npm run bench:size`: what each pollite entry point and each opt-in feature
// costs a user's bundle, next to its peers measured the same way in the same
// run: esbuild, minified, ESM, for the browser, gzip -9 (react, vue, svelte,
// solid-js and @tanstack/query-core external for the adapters). Reads the
// built dist/ through package.json's exports, as an installed package is
// read: each entry twice, with the `production` condition (what Vite and
// webpack production builds pick: no development checks; size-budget.json
// holds these) and without it (the default, development build).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const budgets = JSON.parse(readFileSync(join(root, 'size-budget.json'), 'utf8'));

/** min+gz bytes of `code`; `production`: bundled with the `production` condition. `pollite` resolves to this package itself (its name and exports). */
async function gzipped(code, production = true) {
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: production ? ['production'] : [],
    write: false,
    logLevel: 'silent',
    external: ['react', 'react-dom', 'vue', 'svelte', 'svelte/*', 'solid-js', 'solid-js/*', 'node:*', ...(code.includes("'@tanstack/query-core'") ? [] : ['@tanstack/query-core'])],
  });
  return gzipSync(result.outputFiles[0].contents, { level: 9 }).length;
}

const poll = "import { poll } from 'pollite';";
const FEATURES = [
  ['share()', 'share', 'share()'],
  ['shareTabs()', 'shareTabs', 'shareTabs()'],
  ['paceByData()', 'paceByData', 'paceByData({ min: 1000, max: 30000 })'],
  ['paceByCacheControl()', 'paceByCacheControl', 'paceByCacheControl()'],
  ['pauseWhenBlurred()', 'pauseWhenBlurred', 'pauseWhenBlurred()'],
];
const PEERS = [
  ['ky (all of it)', "import ky from 'ky'; globalThis.x = ky;"],
  ['p-retry', "import pRetry from 'p-retry'; globalThis.x = pRetry;"],
  ['swr (useSWR, react external)', "import useSWR from 'swr'; globalThis.x = useSWR;"],
  ['@tanstack/query-core (QueryClient + QueryObserver)', "import { QueryClient, QueryObserver } from '@tanstack/query-core'; globalThis.x = [QueryClient, QueryObserver];"],
];

const { verdict } = await import('../scripts/size-rules.mjs');
const rows = [];
const sizes = new Map();
for (const [label, entry] of Object.entries(budgets)) {
  if (label.startsWith('$')) continue;
  const bytes = await gzipped(entry.code);
  sizes.set(label, bytes);
  rows.push(`${verdict(label, bytes, entry, sizes).line}; default (development) build ${await gzipped(entry.code, false)} B`);
}
const base = await gzipped(`${poll} globalThis.x = poll;`);
const features = [];
for (const [label, name, call] of FEATURES) {
  const bytes = await gzipped(`${poll} import { ${name} } from 'pollite/cooperate'; globalThis.x = (url) => poll(url, { use: [${call}] });`);
  features.push([label, bytes - (await gzipped(`${poll} globalThis.x = (url) => poll(url, {});`))]);
}
const peers = [];
for (const [label, code] of PEERS) peers.push([label, await gzipped(code)]);

const pad = (text, width) => String(text).padEnd(width);
console.log('pollite entry points (min+gz, bytes): the production build (`production` condition) against its budget, then the default build');
for (const line of rows) console.log(`  ${line}`);
console.log(`\nopt-in features of pollite/cooperate: marginal cost over import { poll } (${base} B)`);
for (const [label, bytes] of features) console.log(`  ${pad(label, 24)} +${bytes}`);
console.log('\npeers, bundled the same way in this run');
for (const [label, bytes] of peers) console.log(`  ${pad(label, 56)} ${bytes}  (${(bytes / base).toFixed(2)}x import { poll })`);
