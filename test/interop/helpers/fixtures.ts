import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A JSON document large enough for every compressor to take it (over 1 kB). */
export const DOCUMENT = { jobs: Array.from({ length: 60 }, (_, i) => ({ id: i, status: 'done', note: `job number ${i} of the interop suite` })) };

/** A temp directory holding `data.json` (and `limited.json`), dated in the past so Last-Modified is stable; `remove` deletes it. */
export function staticDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pollite-interop-'));
  for (const name of ['data.json', 'limited.json', 'job.json']) {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(name === 'data.json' ? DOCUMENT : { ok: true }));
    utimesSync(file, new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z'));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
