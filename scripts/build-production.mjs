// The two builds of one source (see src/options/dev.d.ts). tsc wrote dist/
// with every check that only helps a developer behind the guard
// `typeof __DEV__ === 'undefined' || __DEV__`. This step, run after tsc and
// the bundles of build-cli and build-simulator:
//   - writes dist/production/, the `production` export condition (Vite and
//     webpack 5 set it in a production build; esbuild takes
//     `--conditions=production`): every module of dist/ but the bin and its
//     demo API, each guard made `false` and its dead branch dropped by
//     esbuild's transform (minifySyntax only: names and lines stay readable;
//     modules without a guard are copied as they are);
//   - turns each guard of dist/ itself into `true`: the `default` condition,
//     what Node, Deno, Bun, tests and dev servers load, checks everything
//     and reads no global.
// The types stay in dist/ alone: `types` comes first in every export, for both.
//
// `node scripts/build-production.mjs [dist dir]`: another copy of dist/ may be named.
import { transform } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const production = join(dist, 'production');
const GUARD = "typeof __DEV__ === 'undefined' || __DEV__";

if (existsSync(production)) {
  console.error(`${relative(root, production)} exists: its guards were already replaced. Run it after a fresh tsc build (npm run build).`);
  process.exit(1);
}

/** The .js files tsc wrote to dist/: not the bin's bundles (dist/cli.js, dist/cli/), which import pollite from dist/ and hold others' code. */
function* modules(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (/^(cli\.js|cli)$/.test(relative(dist, path))) continue;
    if (entry.isDirectory()) yield* modules(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}
/** Whether an export reaches the module: not the demo API, which the bin alone serves. */
const exported = (name) => !name.startsWith('demo/');

const occurrences = (text, part) => text.split(part).length - 1;
// Both builds of every module first, so that a failure leaves dist/ as tsc wrote it.
const built = [];
for (const path of modules(dist)) {
  const text = readFileSync(path, 'utf8');
  const name = relative(dist, path).split(sep).join('/');
  const guards = occurrences(text, GUARD);
  // Each guard names __DEV__ twice; any other use (a comment included) would be left to the reader's runtime.
  if (occurrences(text, '__DEV__') !== 2 * guards) throw new Error(`${name}: __DEV__ appears outside the guard \`${GUARD}\``);
  if (guards === 0) {
    built.push({ path, name, guards, development: text, production: text });
    continue;
  }
  const { code } = await transform(text, { loader: 'js', format: 'esm', target: 'es2022', define: { __DEV__: 'false' }, minifySyntax: true, legalComments: 'inline' });
  if (code.includes('__DEV__')) throw new Error(`${name}: a guard survived the production build`);
  built.push({ path, name, guards, development: text.replaceAll(GUARD, 'true'), production: code });
}
let guards = 0;
let files = 0;
let before = 0;
let after = 0;
let copied = 0;
for (const module of built) {
  if (module.guards > 0) {
    writeFileSync(module.path, module.development);
    guards += module.guards;
    files += 1;
    before += module.development.length;
    after += module.production.length;
  }
  if (!exported(module.name)) continue;
  copied += 1;
  mkdirSync(dirname(join(production, module.name)), { recursive: true });
  writeFileSync(join(production, module.name), module.production);
}
console.log(
  `dist/production: ${copied} modules, ${guards} development checks dropped from ${files} of them (${before} -> ${after} characters); dist/: the same checks always on`,
);
