// Bundles the `pollite` bin into dist/cli.js: src/cli with commander and
// picocolors inlined, so the package keeps zero runtime dependencies. The
// core and the demo API are not copied in: imports of them point at the files
// tsc already wrote to dist/ (one copy of pollite, one demo server).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const cliDir = join(src, 'cli') + sep;
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `../index.js` from src/cli/x.ts becomes the file tsc wrote to dist/, relative to the bundle in `outDir`. */
const coreFromDist = (outDir) => ({
  name: 'core-from-dist',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, ({ path, resolveDir }) => {
      const target = resolve(resolveDir, path);
      if (target.startsWith(cliDir) || !target.startsWith(src + sep)) return undefined;
      const fromDist = relative(join(root, outDir), join(root, 'dist', relative(src, target))).split(sep).join('/');
      const bare = fromDist.slice(0, fromDist.length - extname(fromDist).length);
      return { path: `${bare.startsWith('.') ? '' : './'}${bare}.js`, external: true };
    });
  },
});

/** `pollite simulate`, loaded by the bin only when asked for. */
await build({
  entryPoints: [join(src, 'cli', 'simulate', 'command.ts')],
  outfile: join(root, 'dist', 'cli', 'simulate.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [coreFromDist('dist/cli')],
  logLevel: 'warning',
});

const result = await build({
  entryPoints: [join(src, 'cli', 'bin.ts')],
  outfile: join(root, 'dist', 'cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // commander is CommonJS and require()s node built-ins: give it a real require.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __pollite_createRequire } from 'node:module';\nconst require = __pollite_createRequire(import.meta.url);" },
  define: { POLLITE_VERSION: JSON.stringify(version) },
  plugins: [coreFromDist('dist')],
  metafile: true,
  logLevel: 'warning',
});

const imports = Object.values(result.metafile.outputs)[0].imports.filter((i) => i.external).map((i) => i.path);
const foreign = imports.filter((path) => !path.startsWith('node:') && !path.startsWith('./'));
if (foreign.length > 0) {
  console.error(`dist/cli.js must import only node built-ins and pollite's own files, found: ${foreign.join(', ')}`);
  process.exit(1);
}
console.log(`dist/cli.js: ${(Object.values(result.metafile.outputs)[0].bytes / 1024).toFixed(1)} KB, imports ${[...new Set(imports)].join(', ')}`);
