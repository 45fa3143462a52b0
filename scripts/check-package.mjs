// The package as users get it: pack it, lint the tarball (publint, attw),
// install it into a fresh project, import it by name, run it against a local
// server, bundle it with esbuild and hold each entry point to its size budget
// (its production build), and check that a production bundle (esbuild with
// the `production` condition, a Vite build) carries none of the development
// checks that Node, by default, still runs. Before all that, what npm shows
// and old tools read: repository, homepage, bugs, the README (install line
// first, every link absolute and found in the repository), the CHANGELOG, and
// types that TypeScript's `moduleResolution: "node"` resolves (a tsc run).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { linkProblems, linksOf } from './package-links.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, '.tmp', 'package-check');
const run = (cmd, args, cwd = root) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const npmBin = (name) => join(root, 'node_modules', '.bin', name);

rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, 'consumer'), { recursive: true });

const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work]));
const tarball = join(work, packed[0].filename);
console.log(`packed ${packed[0].filename}: ${packed[0].entryCount} files, ${(packed[0].size / 1024).toFixed(1)} KB`);

console.log(run(npmBin('publint'), ['run', tarball, '--strict']).trim());
console.log(run(npmBin('attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped']).trim());

// A fresh project that installs the tarball and imports pollite by name.
const consumer = join(work, 'consumer');
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--offline', tarball], consumer);
const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', 'pollite', 'package.json'), 'utf8'));
const entries = Object.keys(manifest.exports).filter((key) => key !== './package.json');

// What npm shows of the package, and what people meet first (issue 35): where it lives, the install line, links that
// work without the repository beside them (scripts/package-links.mjs), the changelog, and types for old resolvers.
const installed = join(consumer, 'node_modules', 'pollite');
const repository = manifest.repository?.url?.replace(/^git\+/, '').replace(/\.git$/, '');
const shipped = (file) => (existsSync(join(installed, file)) ? readFileSync(join(installed, file), 'utf8') : undefined);
const inRepository = (path) => (!existsSync(join(root, path)) ? undefined : statSync(join(root, path)).isDirectory() ? '' : readFileSync(join(root, path), 'utf8'));
const readme = shipped('README.md') ?? '';
const firstBlock = /^```[^\n]*\n([\s\S]*?)^```/m.exec(readme)?.[1] ?? '';
const metaProblems = [
  ...(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/.test(repository ?? '') ? [] : [`repository.url is ${JSON.stringify(manifest.repository)}: a GitHub repository, git+https://github.com/owner/name.git`]),
  ...(manifest.homepage === `${repository}#readme` ? [] : [`homepage is ${manifest.homepage}, not the repository's README (${repository}#readme)`]),
  ...(manifest.bugs?.url === `${repository}/issues` ? [] : [`bugs.url is ${manifest.bugs?.url}, not the repository's issues (${repository}/issues)`]),
  ...['main', 'types'].filter((field) => !manifest[field] || !existsSync(join(installed, manifest[field]))).map((field) => `${field} (${manifest[field]}) is not in the package`),
  ...['README.md', 'CHANGELOG.md'].filter((file) => shipped(file) === undefined).map((file) => `${file} is not in the package`),
  ...(firstBlock.split('\n')[0] === 'npm install pollite' ? [] : ['the README\'s first code block does not open with `npm install pollite`']),
  ...(readme.includes(`](${repository}/blob/main/CHANGELOG.md)`) ? [] : ['the README does not link the changelog']),
  ...['npm install && npm start', 'npm test'].filter((command) => !readme.includes(`\n${command} `)).map((command) => `the README does not show \`${command}\` (the front door for contributors)`),
  ...['README.md', 'CHANGELOG.md'].flatMap((file) => linkProblems(shipped(file) ?? '', { repository, read: inRepository }).map((problem) => `${file}: ${problem}`)),
];
if (metaProblems.length) throw new Error(`the packed package:\n  ${metaProblems.join('\n  ')}`);
const links = ['README.md', 'CHANGELOG.md'].map((file) => `${file} ${linksOf(shipped(file)).length}`).join(', ');
console.log(`package: repository, homepage and bugs at ${repository}; README (npm install pollite first) and CHANGELOG shipped, every link absolute and found in the repository (${links})`);

// TypeScript's oldest resolver (`moduleResolution: "node"`, node10) reads no `exports`: `types` and `typesVersions` lead
// it to every entry. A real tsc run from the consumer; @ts-expect-error proves the types were read, not `any`.
const node10Entries = entries.map((key) => key.replace(/^\./, 'pollite'));
writeFileSync(
  join(consumer, 'node10.ts'),
  `${node10Entries.map((name, i) => `import * as entry${i} from '${name}';`).join('\n')}
// @ts-expect-error: \`interval\` is a number of milliseconds
void entry${entries.indexOf('.')}.poll('https://api.example/jobs/1', { interval: '2s' });
export const entries = [${node10Entries.map((_, i) => `entry${i}`).join(', ')}];
`,
);
writeFileSync(
  join(consumer, 'tsconfig.node10.json'),
  JSON.stringify({
    compilerOptions: { moduleResolution: 'node10', module: 'es2022', target: 'es2022', lib: ['es2022', 'dom'], strict: true, noEmit: true, skipLibCheck: true, types: [] },
    files: ['node10.ts'],
  }),
);
let node10Files;
try {
  node10Files = run(npmBin('tsc'), ['-p', 'tsconfig.node10.json', '--listFiles'], consumer);
} catch (error) {
  throw new Error(`moduleResolution "node" (node10) cannot use the installed package:\n${error.stdout}`);
}
const unresolved = entries.filter((key) => !node10Files.includes(join(installed, manifest.exports[key].types.replace(/^\.\//, ''))));
if (unresolved.length) throw new Error(`moduleResolution "node" (node10) did not read the types of ${unresolved.join(', ')}`);
console.log(`moduleResolution "node" (node10): tsc resolves pollite and its ${entries.length - 1} subpaths to their types (main, types, typesVersions)`);

writeFileSync(
  join(consumer, 'smoke.mjs'),
  `import { createServer } from 'node:http';
import * as pollite from 'pollite';
import * as kit from 'pollite/kit';
const { poll, fullJitter } = pollite;
const { parseRetryAfter, urlKey } = kit;
let n = 0;
const server = createServer((req, res) => {
  n += 1;
  if (n === 1) { res.writeHead(503, { 'retry-after': '0' }); return res.end(); }
  if (req.headers['if-none-match'] === '"a"') { res.writeHead(304); return res.end(); }
  res.writeHead(200, { 'content-type': 'application/json', etag: '"a"' });
  res.end(JSON.stringify({ status: n >= 4 ? 'done' : 'running' }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = 'http://127.0.0.1:' + server.address().port;
const statuses = [];
const job = await poll(url, { interval: 10, conditional: false, isDone: (j) => j.status === 'done',
  onEvent: (e) => e.type === 'response' && statuses.push(e.status) });
server.close();
if (job.status !== 'done' || statuses.join() !== '503,200,200,200') throw new Error('smoke poll failed: ' + statuses);
if (parseRetryAfter('2') !== 2000 || urlKey(new URL(url)) !== url + '/' || typeof fullJitter({ base: 1, cap: 2 }) !== 'function') throw new Error('smoke api failed');
console.log('import { poll } from "pollite" works from the installed tarball: ' + Object.keys(pollite).length + ' exports; pollite/kit: ' + Object.keys(kit).length);
const serverEntry = await import('pollite/server');
const fresh = await serverEntry.jsonWithETag(new Request('http://x/'), { ok: true });
const cached = await serverEntry.jsonWithETag(new Request('http://x/', { headers: { 'if-none-match': fresh.headers.get('etag') } }), { ok: true });
if (fresh.status !== 200 || cached.status !== 304) throw new Error('smoke pollite/server failed');
console.log('import { jsonWithETag } from "pollite/server" works: ' + Object.keys(serverEntry).length + ' exports');
const tanstack = await import('pollite/tanstack');
const busy = new pollite.HttpError(new Response(null, { status: 503, headers: { 'retry-after': '1' } }), url);
const wait = tanstack.retryDelay(0, busy);
if (!tanstack.retry(0, busy) || !(wait >= 1000 && wait <= 1200) || tanstack.refetchUntil(() => true, 1)({ state: { data: 1 } }) !== false) throw new Error('smoke pollite/tanstack failed');
console.log('import { retry, retryDelay } from "pollite/tanstack" works without @tanstack/query-core installed: ' + Object.keys(tanstack).length + ' exports');
`,
);
console.log(run('node', ['smoke.mjs'], consumer).trim());

// The installed bin: bundled, so it runs without pollite's dev dependencies; it polls a local server to a condition.
writeFileSync(
  join(consumer, 'cli-smoke.mjs'),
  `import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
let n = 0;
const server = createServer((req, res) => {
  n += 1;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: n >= 2 ? 'done' : 'running' }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = 'http://127.0.0.1:' + server.address().port;
const result = await new Promise((resolve) =>
  execFile('node_modules/.bin/pollite', [url, '-u', 'status=done', '-i', '10ms', '--json'], (error, stdout) => resolve({ code: error ? error.code : 0, stdout })));
server.close();
if (result.code !== 0 || JSON.parse(result.stdout).status !== 'done' || n !== 2) throw new Error('smoke bin failed: ' + JSON.stringify(result) + ', ' + n + ' requests');
console.log('the installed pollite bin polled a local server to status=done in ' + n + ' requests');
`,
);
console.log(run('node', ['cli-smoke.mjs'], consumer).trim());

// pollite/react by name, with React linked in from this repo the way an app provides its peer dependency.
for (const name of ['react', 'react-dom']) symlinkSync(join(root, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
writeFileSync(
  join(consumer, 'smoke-react.mjs'),
  `import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import * as hooks from 'pollite/react';
function View() {
  const job = hooks.usePoll('http://127.0.0.1/jobs/1');
  const report = hooks.useFetchWithRetry('http://127.0.0.1/report');
  return createElement('p', null, job.status + ' ' + report.loading + ' ' + report.limit);
}
const html = renderToString(createElement(View));
if (html !== '<p>idle true 4</p>') throw new Error('smoke pollite/react failed: ' + html);
console.log('import { usePoll, useFetchWithRetry } from "pollite/react" renders on the server: ' + Object.keys(hooks).join(', '));
`,
);
console.log(run('node', ['smoke-react.mjs'], consumer).trim());

// Bundle sizes: minified + gzipped, as a user's bundler would ship them (see scripts/size-rules.mjs).
const budgets = JSON.parse(readFileSync(join(root, 'size-budget.json'), 'utf8'));
const { build } = await import('esbuild');
const { verdict } = await import('./size-rules.mjs');
/** `code` bundled from the consumer, minified, as a user's bundler would: with `conditions` (`production`: what a production build picks). */
async function bundled(code, conditions) {
  const result = await build({
    stdin: { contents: code, resolveDir: consumer, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    conditions,
    write: false,
    external: ['react', 'react-dom', 'vue', 'svelte', 'svelte/*', 'solid-js', 'solid-js/*', '@tanstack/query-core', 'node:*'],
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}
let failed = false;
const sizes = new Map();
const missed = [];
for (const [label, entry] of Object.entries(budgets)) {
  if (label.startsWith('$')) continue;
  const bytes = gzipSync(await bundled(entry.code, ['production']), { level: 9 }).length;
  sizes.set(label, bytes);
  const judged = verdict(label, bytes, entry, sizes);
  if (judged.failed) failed = true;
  if (judged.line.includes('TARGET NOT MET')) missed.push(label);
  console.log(`size ${judged.line} (production build; default build ${gzipSync(await bundled(entry.code, []), { level: 9 }).length} B)`);
}
if (missed.length) console.log(`size: ${missed.length} of ${sizes.size} entries above their target (reported, not hidden: see size-budget.json)`);

// A Vite app, as a user builds one: React alone, then React with usePoll from the installed package.
const { build: viteBuild } = await import('vite');
/** The code of each Vite app, by name. */
const viteCode = new Map();
async function viteApp(name, code) {
  const dir = join(consumer, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="./main.js"></script>');
  writeFileSync(join(dir, 'main.js'), code);
  const output = await viteBuild({ root: dir, logLevel: 'silent', configFile: false, build: { write: false, minify: true } });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => o.output).filter((file) => file.type === 'chunk');
  viteCode.set(name, chunks.map((chunk) => chunk.code).join('\n'));
  return chunks.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0);
}
const reactApp = `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
function App() { return createElement('p', null, 'idle'); }
createRoot(document.getElementById('root')).render(createElement(App));
`;
const alone = await viteApp('vite-react', reactApp);
const withPoll = await viteApp(
  'vite-react-poll',
  reactApp.replace("import { createRoot }", "import { usePoll } from 'pollite/react';\nimport { createRoot }").replace("return createElement('p', null, 'idle');", "const job = usePoll('/jobs/1'); return createElement('p', null, job.status + ' ' + job.attempt + ' of ' + job.limit);"),
);
// The same screen with the peers' polling hooks, measured the same way in this run (the repository's dev dependencies).
const withSwr = await viteApp(
  'vite-react-swr',
  reactApp.replace("import { createRoot }", "import useSWR from 'swr';\nimport { createRoot }").replace("return createElement('p', null, 'idle');", "const { data } = useSWR('/jobs/1', (url) => fetch(url).then((r) => r.json()), { refreshInterval: 1000 }); return createElement('p', null, String(data?.status));"),
);
const withQuery = await viteApp(
  'vite-react-query',
  reactApp
    .replace("import { createRoot }", "import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';\nimport { createRoot }")
    .replace("function App() { return createElement('p', null, 'idle'); }", "const client = new QueryClient();\nfunction Job() { const { data } = useQuery({ queryKey: ['job'], queryFn: () => fetch('/jobs/1').then((r) => r.json()), refetchInterval: 1000 }); return createElement('p', null, String(data?.status)); }\nfunction App() { return createElement(QueryClientProvider, { client }, createElement(Job)); }"),
);
const pollOnly = sizes.get("import { poll } from 'pollite'");
const usePollTarget = pollOnly + 1024;
const grew = withPoll - alone;
console.log(
  `size usePoll in a Vite app (React 19): +${grew} B min+gz over React alone (${alone} B), target poll + 1 KB = ${usePollTarget} B: ${grew <= usePollTarget ? 'met' : `TARGET NOT MET by ${grew - usePollTarget} B`}`,
);
console.log(`size the same screen with a peer's polling hook, over React alone: SWR's useSWR (refreshInterval) +${withSwr - alone} B, TanStack Query's useQuery (refetchInterval) +${withQuery - alone} B`);

// The development checks (src/options/dev.d.ts): none in a production bundle, every one where Node runs pollite by default.
const DEVELOPMENT_ONLY = ['Unknown option', 'did you mean', 'given as ', 'pollite: poll() without', 'number of milliseconds'];
const carried = (code) => DEVELOPMENT_ONLY.filter((words) => code.includes(words));
// The simulator keeps its checks in both builds: its options may come from a form (the playground), not only from code.
for (const entry of entries.filter((key) => key !== './simulator')) {
  const code = `import * as p from '${entry.replace(/^\./, 'pollite')}'; globalThis.x = p;`;
  const found = carried(await bundled(code, ['production']));
  if (found.length) {
    failed = true;
    console.log(`production ${entry} (esbuild --conditions=production) carries development checks: ${found.join(', ')}: FAILED`);
  }
}
const rootDefault = carried(await bundled("import * as p from 'pollite'; globalThis.x = p;", []));
const appFound = carried(viteCode.get('vite-react-poll'));
console.log(
  `production: no development check in an esbuild bundle with --conditions=production of any entry but ./simulator; in the Vite app with usePoll: ${appFound.length ? `${appFound.join(', ')}: FAILED` : 'none'}; in the default build of pollite: ${rootDefault.length} of ${DEVELOPMENT_ONLY.length} messages`,
);
if (appFound.length || rootDefault.length !== DEVELOPMENT_ONLY.length) failed = true;
writeFileSync(
  join(consumer, 'checks.mjs'),
  `import { poll, fetchWithRetry } from 'pollite';
const production = process.argv[2] === 'production';
const outcomes = [];
const offline = () => Promise.reject(new Error('offline'));
const ok = async () => new Response('{}');
for (const call of [() => poll('http://127.0.0.1:9/', { isdone: () => true, retries: 0, fetch: offline }), () => fetchWithRetry('http://127.0.0.1:9/', { retries: 3, retry: { fetch: ok } })]) {
  outcomes.push(await call().then(() => 'resolved', (error) => (error instanceof TypeError ? error.message : 'other: ' + error)));
}
const expected = ['Unknown option \`isdone\`: did you mean \`isDone\`?', "Expected \`retries\` to be given as \`retry.retries\`: the second argument is fetch's init, with the retry options under \`retry\`"];
if (!production && outcomes.join() !== expected.join()) throw new Error('a misspelt option is not refused in Node: ' + outcomes.join(' | '));
if (production && outcomes.some((outcome) => outcome.startsWith('Unknown') || outcome.startsWith('Expected'))) throw new Error('node --conditions=production still checks: ' + outcomes.join(' | '));
console.log(production ? 'node --conditions=production loads the production build: no option check' : 'import { poll, fetchWithRetry } from "pollite" in Node refuses a misspelt option: ' + outcomes.join(' | '));
`,
);
console.log(run('node', ['checks.mjs'], consumer).trim());
console.log(run('node', ['--conditions=production', 'checks.mjs', 'production'], consumer).trim());
console.log(`entry points: ${entries.join(', ')}`);
rmSync(work, { recursive: true, force: true });
if (failed) process.exit(1);
