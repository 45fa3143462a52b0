// Runs the real-browser tests when Debian's Chromium is installed, and says
// clearly that it skipped them when it is not (CI installs it first).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const files = existsSync('test/browser') ? readdirSync('test/browser').filter((f) => f.endsWith('.test.ts')) : [];
if (files.length === 0) {
  console.log('browser tests: none yet');
  process.exit(0);
}
if (!existsSync(chromium)) {
  console.log(`browser tests: SKIPPED, no Chromium at ${chromium} (apt-get install chromium to run them; CI always does)`);
  process.exit(0);
}
const result = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.browser.config.ts'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
