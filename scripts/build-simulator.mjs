// Bundles d3-scale and d3-shape into dist/simulator/chart.js (replacing the
// file tsc wrote), so `pollite/simulator` and `pollite simulate --svg` work
// with zero runtime dependencies. Only the chart module imports d3.
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `node scripts/build-simulator.mjs [dist dir]`: another copy of dist/ may be named.
const out = resolve(process.argv[2] ?? join(root, 'dist'));

await build({
  entryPoints: [join(root, 'src', 'simulator', 'chart.ts')],
  outfile: join(out, 'simulator', 'chart.js'),
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  allowOverwrite: true,
  minify: true,
  legalComments: 'eof',
  banner: { js: '// Bundled: d3-scale, d3-shape, d3-array, d3-interpolate, d3-color, d3-format, d3-time, d3-time-format, d3-path, internmap (ISC License, Copyright Mike Bostock).' },
  logLevel: 'warning',
});
