import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate/command.js';

const sink = (onWrite: () => void = () => undefined): Writable & { text: () => string } => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      onWrite();
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
};

const dir = mkdtempSync(join(tmpdir(), 'pollite-sim-svg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FLEET = ['--clients', '20', '--duration', '20s', '--interval', '1s'];

describe('pollite simulate --svg', () => {
  it.each([
    [join('/nonexistent-dir', 'x.svg'), '--svg /nonexistent-dir/x.svg: no directory /nonexistent-dir'],
    [join(dir, 'missing', 'x.svg'), `--svg ${join(dir, 'missing', 'x.svg')}: no directory ${join(dir, 'missing')}`],
    [dir, `--svg ${dir}: is a directory`],
    ['', '--svg expects a file name'],
  ])('%s is a usage error before anything is simulated', async (file, message) => {
    const [stdout, stderr] = [sink(), sink()];
    const code = await simulateCommand([...FLEET, '--svg', file], { stdout, stderr });
    expect(code).toBe(64);
    expect(stdout.text()).toBe('');
    expect(stderr.text()).toBe(`pollite simulate: ${message}\nRun 'pollite simulate --help' for usage.\n`);
  });

  it('prints the results first, then a one-line error, if the chart still cannot be written', async () => {
    const gone = join(dir, 'gone');
    mkdirSync(gone);
    // The directory is there when checked, and removed when the table is printed.
    const [stdout, stderr] = [sink(() => rmSync(gone, { recursive: true, force: true })), sink()];
    const code = await simulateCommand([...FLEET, '--svg', join(gone, 'x.svg')], { stdout, stderr });
    expect(code).toBe(73);
    expect(stdout.text()).toMatch(/^outage: 20 clients polling every 1 s/);
    expect(stdout.text()).toMatch(/^pollite +\d/m);
    const lines = stderr.text().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^simulated in /);
    expect(lines.slice(1)).toEqual([expect.stringMatching(new RegExp(`^pollite simulate: could not write --svg ${join(gone, 'x.svg')}: ENOENT`))]);
  });

  it('writes the chart after printing the results', async () => {
    const file = join(dir, 'ok.svg');
    const [stdout, stderr] = [sink(), sink()];
    const code = await simulateCommand([...FLEET, '--json', '--svg', file], { stdout, stderr });
    expect(code).toBe(0);
    expect(JSON.parse(stdout.text())).toMatchObject({ scenario: 'outage', clients: 20 });
    expect(stderr.text()).toMatch(new RegExp(`\nwrote ${file}\n$`));
    expect(readFileSync(file, 'utf8')).toMatch(/^<svg /);
  });
});
