import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// One source, two builds (src/options/dev.d.ts, scripts/build-production.mjs):
// the checks that only help a developer are in the default build, which Node,
// tests and dev servers load, and in no production bundle.

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Words that only the development checks write. */
const DEVELOPMENT_ONLY = ['Unknown option', 'did you mean', 'given as ', 'pollite: poll() without'];
/** And the words of an option check of `poll` and `retry` (pollite/server checks its own options in both builds). */
const OPTION_TYPE = 'a non-negative integer';
const EXTERNAL = ['react', 'react-dom', 'vue', 'svelte', 'svelte/*', 'solid-js', 'solid-js/*', '@tanstack/query-core', 'node:*'];
const carried = (code: string): string[] => DEVELOPMENT_ONLY.filter((words) => code.includes(words));

/** `code` bundled and minified as a user's bundler would. */
async function bundled(code: string, options: { define?: Record<string, string>; conditions?: string[] } = {}): Promise<string> {
  const result = await build({ stdin: { contents: code, resolveDir: root, loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'silent', external: EXTERNAL, ...options });
  return result.outputFiles[0]!.text;
}

describe('every development check sits behind the guard (the source)', () => {
  // The simulator keeps its checks in both builds: its options may come from a form, not only from code.
  const entries = ['index', 'cooperate/index', 'observe/index', 'react/index', 'tanstack/index', 'cluster/index'];

  it.each(entries)('src/%s.ts: none with __DEV__ false, every one unbuilt', async (entry) => {
    const code = `import * as p from './src/${entry}.ts'; globalThis.x = p;`;
    const production = await bundled(code, { define: { __DEV__: 'false' } });
    expect(carried(production)).toEqual([]);
    expect(production).not.toContain(OPTION_TYPE);
    const unbuilt = await bundled(code);
    expect(carried(unbuilt)).toContain('Unknown option');
    if (entry !== 'cluster/index' && entry !== 'cooperate/index') expect(unbuilt).toContain(OPTION_TYPE);
  });

  it('the root, unbuilt, writes every one of them', async () => {
    expect(carried(await bundled("import * as p from './src/index.ts'; globalThis.x = p;"))).toEqual(DEVELOPMENT_ONLY);
  });
});

describe('the package: the `production` condition for bundlers, the checks by default', () => {
  const built = existsSync(join(root, 'dist', 'production', 'index.js'));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
  const work = mkdtempSync(join(tmpdir(), 'pollite-production-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('was built (npm run build)', () => {
    expect(built, 'dist/production is missing: run `npm run build` first').toBe(true);
  });

  it('every entry has a production build beside its default, and shares its types', () => {
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      expect(Object.keys(target)[0], entry).toBe('types');
      expect(target.production, entry).toBe(target.default!.replace('./dist/', './dist/production/'));
      if (built) expect(existsSync(join(root, target.production!)), target.production).toBe(true);
    }
  });

  it.skipIf(!built)('esbuild --conditions=production: no development check in any entry but the simulator', async () => {
    for (const entry of Object.keys(manifest.exports).filter((key) => key !== './package.json' && key !== './simulator')) {
      const code = `import * as p from '${entry.replace(/^\./, 'pollite')}'; globalThis.x = p;`;
      expect(carried(await bundled(code, { conditions: ['production'] })), entry).toEqual([]);
    }
    const everything = "import * as p from 'pollite'; globalThis.x = p;";
    expect(await bundled(everything, { conditions: ['production'] })).not.toContain(OPTION_TYPE);
    const development = await bundled(everything);
    expect(carried(development)).toEqual(DEVELOPMENT_ONLY);
    expect(development).toContain(OPTION_TYPE);
  });

  it.skipIf(!built)('a Vite production build of an app with poll carries none', () => {
    const app = join(work, 'vite-app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    symlinkSync(root, join(app, 'node_modules', 'pollite'), 'dir');
    writeFileSync(join(app, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
    writeFileSync(join(app, 'main.js'), "import { poll } from 'pollite';\npoll('/jobs/1', { isDone: (job) => job.done }).then(console.log);\n");
    // `vite build` as an app runs it, in a process of its own: Vite picks the condition by NODE_ENV, which vitest sets to `test`.
    writeFileSync(
      join(app, 'build.mjs'),
      `import { build } from ${JSON.stringify(join(root, 'node_modules', 'vite', 'dist', 'node', 'index.js'))};
const output = await build({ root: ${JSON.stringify(app)}, logLevel: 'silent', configFile: false, build: { write: false, minify: true } });
const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output).filter((file) => file.type === 'chunk');
process.stdout.write(chunks.map((chunk) => chunk.code).join('\\n'));`,
    );
    const { NODE_ENV: _test, ...env } = process.env;
    const code = execFileSync(process.execPath, [join(app, 'build.mjs')], { cwd: app, env, encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(code).toContain('retry-after');
    expect(carried(code)).toEqual([]);
  });

  it.skipIf(!built)('Node, by default, refuses a misspelt option by name; with --conditions=production it does not check', () => {
    const script = `import { poll } from 'pollite';
const outcome = await poll('http://127.0.0.1:9/', { isdone: () => true, retries: 0, fetch: () => Promise.reject(new Error('offline')) }).then(() => 'resolved', (error) => error.name + ': ' + error.message);
console.log(outcome);`;
    const run = (flags: string[]): string => execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }).trim();
    expect(run([])).toBe('TypeError: Unknown option `isdone`: did you mean `isDone`?');
    expect(run(['--conditions=production'])).toBe('Error: offline');
  });
});
