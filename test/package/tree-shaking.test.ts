import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The source files esbuild keeps in a minified browser bundle of `code`. */
async function kept(code: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}

describe('a feature that is not imported costs zero bytes', () => {
  it('import { poll } carries the one attempt engine, and no cooperation and nothing of retry', async () => {
    const files = await kept("import { poll } from './src/index.ts'; globalThis.x = poll;");
    expect(files.filter((f) => /src\/(cooperate|retry|backoff\/(?!ceiling))/.test(f))).toEqual([]);
    expect(files).toContain('src/engine/run-attempts.ts');
    expect(files).toContain('src/engine/pauses.ts');
    expect(files).toContain('src/cooldown/origin-cooldown.ts');
  });

  it('retry and fetchWithRetry carry the same engine, and no visibility, online or focus source, no pause and nothing of poll', async () => {
    for (const code of ["import { retry } from './src/index.ts'; globalThis.x = retry;", "import { fetchWithRetry, createRetryBudget } from './src/index.ts'; globalThis.x = [fetchWithRetry, createRetryBudget];"]) {
      const files = await kept(code);
      expect(files.filter((f) => /src\/(env\/(visibility|online|focus|environment)|engine\/pauses|poll|cooperate)\b/.test(f)), code).toEqual([]);
      expect(files, code).toContain('src/engine/run-attempts.ts');
    }
  });

  it('pollite/kit adds nothing to the root, and each of its building blocks brings only its own file', async () => {
    expect((await kept("import * as p from './src/index.ts'; globalThis.x = p;")).filter((f) => f.startsWith('src/kit/'))).toEqual([]);
    const own = async (code: string): Promise<string[]> => (await kept(code)).filter((f) => f.startsWith('src/'));
    expect(await own("import { urlKey } from './src/kit/index.ts'; globalThis.x = urlKey;")).toEqual(['src/observe/url-key.ts']);
    expect(await own("import { startTimer } from './src/kit/index.ts'; globalThis.x = startTimer;")).toEqual(['src/env/timer.ts']);
    const loops = await kept("import { createSharedLoops } from './src/kit/index.ts'; globalThis.x = createSharedLoops;");
    expect(loops.filter((f) => /src\/(kit|policy|http|engine|poll|retry)\//.test(f))).toEqual(['src/kit/shared-loop.ts']);
  });

  it('each opt-in feature of pollite/cooperate brings only its own files', async () => {
    const blur = await kept("import { poll } from './src/index.ts'; import { pauseWhenBlurred } from './src/cooperate/index.ts'; globalThis.x = [poll, pauseWhenBlurred];");
    expect(blur.filter((f) => f.startsWith('src/cooperate/'))).toEqual(['src/cooperate/pause-when-blurred.ts']);
    const pace = await kept("import { poll } from './src/index.ts'; import { paceByData } from './src/cooperate/index.ts'; globalThis.x = [poll, paceByData];");
    expect(pace.filter((f) => f.startsWith('src/cooperate/'))).toEqual(['src/cooperate/pace-by-data.ts']);
  });
});
