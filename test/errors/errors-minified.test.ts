import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

// Minifiers rename classes; the guards and isRetryableError go by `name`.
describe('error names survive minification', () => {
  it('keeps HttpError, PollGaveUpError and ParseError names in a minified bundle', async () => {
    const result = await build({
      stdin: {
        contents: `import { HttpError, PollGaveUpError, ParseError, isHttpError } from './src/index.ts';
          const r = new Response('x', { status: 503 });
          globalThis.out = [new HttpError(r).name, new PollGaveUpError(2, 503, null).name, new ParseError(r, 'u', null).name, isHttpError(new HttpError(r))];`,
        resolveDir: fileURLToPath(new URL('../..', import.meta.url)),
        loader: 'ts',
      },
      bundle: true,
      minify: true,
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
    expect((globalThis as { out?: unknown }).out).toEqual(['HttpError', 'PollGaveUpError', 'ParseError', true]);
  });
});
