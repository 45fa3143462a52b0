import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStore, webStorage } from '../../src/resume/index.js';
import { fileStore } from '../../src/resume/node.js';

/** A Storage as a page has it, over a Map. */
function fakeStorage(): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    key: (i: number) => [...map.keys()][i] ?? null,
    clear: () => map.clear(),
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, String(value)),
    removeItem: (key: string) => void map.delete(key),
  };
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('webStorage', () => {
  it('keeps each key under the prefix, and gives back null for none', () => {
    const storage = fakeStorage();
    const store = webStorage(storage);
    store.set('job', '{"v":1}');
    expect(storage.map.get('pollite:job')).toBe('{"v":1}');
    expect(store.get('job')).toBe('{"v":1}');
    store.delete('job');
    expect(store.get('job')).toBeNull();
    webStorage(storage, 'app/').set('a', 'x');
    expect(storage.map.has('app/a')).toBe(true);
  });

  it('refuses what is not a Storage', () => {
    expect(() => webStorage({} as Storage)).toThrow(/`storage`/);
  });
});

describe('memoryStore', () => {
  it('keeps entries in a Map', () => {
    const store = memoryStore();
    store.set('a', '1');
    expect(store.get('a')).toBe('1');
    store.delete('a');
    expect(store.get('a')).toBeUndefined();
  });
});

describe('fileStore', () => {
  it('one file per key, named by its hash (no key escapes the directory), mode 0600, nothing temporary left', async () => {
    dir = join(mkdtempSync(join(tmpdir(), 'pollite-store-')), 'nested');
    const store = fileStore(dir);
    expect(await store.get('../../etc/passwd')).toBeUndefined();
    await store.set('../../etc/passwd', 'one');
    await store.set('job', 'two');
    const files = readdirSync(dir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
      if (process.platform !== 'win32') expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
    expect(await store.get('../../etc/passwd')).toBe('one');
    await store.delete('job');
    await store.delete('job');
    expect(await store.get('job')).toBeUndefined();
  });

  it('writes at once from two stores of the same directory leave one of them whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'pollite-store-'));
    const a = fileStore(dir);
    const b = fileStore(dir);
    const values = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(10_000 + i) }));
    await Promise.all(values.map((value, i) => (i % 2 ? a : b).set('job', value)));
    expect(values).toContain(await a.get('job'));
    expect(readdirSync(dir)).toHaveLength(1);
  });
});
